/**
 * The validation details of a 400, from errors produced by ajv itself, configured as the app's
 * request validation is: every error reported, unknown properties kept (so they can be refused),
 * formats checked; text parts (query, path, headers) coerced, JSON bodies taken as sent.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Ajv } from 'ajv';
import ajvFormatsModule from 'ajv-formats';
import fc from 'fast-check';
import type { FastifySchemaValidationError } from 'fastify';
import { type TSchema, Type } from 'typebox';
import { VALIDATION_CODES } from './errors.js';
import { fieldName, toValidationDetails } from './validation.js';

const addFormats = ajvFormatsModule as unknown as (ajv: Ajv) => Ajv;
const createAjv = (coerceTypes: false | 'array') =>
  addFormats(new Ajv({ allErrors: true, removeAdditional: false, useDefaults: true, coerceTypes }));
const forBody = createAjv(false);
const forText = createAjv('array');

/** What ajv reports for `value` against `schema` (empty when valid). */
function errorsFor(schema: TSchema, value: unknown, ajv = forBody): FastifySchemaValidationError[] {
  const validate = ajv.compile(schema);
  validate(structuredClone(value));
  return (validate.errors ?? []) as FastifySchemaValidationError[];
}

const RoleBody = Type.Object(
  {
    roles: Type.Array(
      Type.Object(
        { level: Type.Enum(['tenant', 'account']), weight: Type.Integer({ minimum: 1, maximum: 10 }) },
        { additionalProperties: false },
      ),
      { maxItems: 3 },
    ),
    since: Type.Optional(Type.String({ format: 'date-time' })),
    status: Type.Optional(Type.Union([Type.Literal('open'), Type.Literal('closed')])),
    name: Type.Optional(Type.String({ minLength: 3, pattern: '^[a-z]+$' })),
  },
  { additionalProperties: false },
);

describe('fieldName', () => {
  test('JSON pointers become dotted paths with [index]', () => {
    assert.equal(fieldName(''), '');
    assert.equal(fieldName('/name'), 'name');
    assert.equal(fieldName('/roles/0/level'), 'roles[0].level');
    assert.equal(fieldName('/0'), '[0]');
    assert.equal(fieldName('/matrix/1/2/cell'), 'matrix[1][2].cell');
    assert.equal(fieldName('/labels/app~1name/x~0y'), 'labels.app/name.x~y');
    assert.equal(fieldName('/~01'), '~1', '~1 is decoded before ~0, as RFC 6901 requires');
  });

  test('any path of names and indexes round-trips through a JSON pointer', () => {
    const name = fc.string({ minLength: 1, maxLength: 8 }).filter((s) => !/^\d+$/.test(s));
    const segment = fc.oneof(name, fc.nat(500));
    fc.assert(
      fc.property(fc.array(segment, { maxLength: 6 }), (segments) => {
        const pointer = segments
          .map((s) => `/${String(s).replace(/~/g, '~0').replace(/\//g, '~1')}`)
          .join('');
        const expected = segments
          .map((s, i) => (typeof s === 'number' ? `[${s}]` : i === 0 ? s : `.${s}`))
          .join('');
        assert.equal(fieldName(pointer), expected);
      }),
    );
  });
});

describe('toValidationDetails', () => {
  test('one detail per offending field, with the code of what is wrong', () => {
    const body = {
      roles: [{ level: 'galaxy', weight: 0, extra: true }, { weight: 'heavy' }],
      since: 'yesterday',
      status: 'pending',
      mood: 'sunny',
    };
    const details = toValidationDetails(errorsFor(RoleBody, body), 'body');
    const byField = Object.fromEntries(details.map((d) => [d.field, d]));
    assert.equal(details.length, Object.keys(byField).length, 'fields are unique');
    assert.deepEqual(Object.fromEntries(details.map((d) => [d.field, d.code])), {
      mood: 'unknown_field',
      'roles[0].extra': 'unknown_field',
      'roles[0].level': 'invalid_value',
      'roles[0].weight': 'out_of_range',
      'roles[1].level': 'required',
      'roles[1].weight': 'invalid_type',
      since: 'invalid_format',
      status: 'invalid_value',
    });
    assert.ok(details.every((d) => d.param === 'body' && d.message.length > 0));
    assert.equal(byField['roles[0].level']?.message, 'must be one of: tenant, account');
    assert.equal(
      byField.status?.message,
      'must be one of: open, closed',
      'a union of literals reads as one list',
    );
    assert.equal(byField['roles[1].level']?.message, 'is required');
    assert.equal(byField.mood?.message, 'is not a known field');
  });

  test('the first error of a field wins', () => {
    const details = toValidationDetails(errorsFor(RoleBody, { roles: [], name: 'A' }), 'body');
    assert.deepEqual(details, [
      {
        code: 'out_of_range',
        field: 'name',
        message: 'must NOT have fewer than 3 characters',
        param: 'body',
      },
    ]);
  });

  test('missing fields at the top, too many items, a body that is not an object', () => {
    assert.deepEqual(toValidationDetails(errorsFor(RoleBody, {}), 'body'), [
      { code: 'required', field: 'roles', message: 'is required', param: 'body' },
    ]);
    const tooMany = Array.from({ length: 4 }, () => ({ level: 'tenant', weight: 1 }));
    assert.deepEqual(
      toValidationDetails(errorsFor(RoleBody, { roles: tooMany }), 'body').map((d) => [d.field, d.code]),
      [['roles', 'out_of_range']],
    );
    assert.deepEqual(
      toValidationDetails(errorsFor(RoleBody, 'roles'), 'body').map((d) => [d.field, d.code, d.param]),
      [['body', 'invalid_type', 'body']],
    );
  });

  test('`param` says where the field was: query, path, header', () => {
    const Query = Type.Object({ limit: Type.Integer({ minimum: 1, maximum: 1000 }) });
    const [detail] = toValidationDetails(errorsFor(Query, { limit: '5000' }, forText), 'querystring');
    assert.deepEqual(detail, {
      code: 'out_of_range',
      field: 'limit',
      message: 'must be <= 1000',
      param: 'query',
    });
    assert.equal(toValidationDetails(errorsFor(Query, {}, forText), 'params')[0]?.param, 'path');
    assert.equal(toValidationDetails(errorsFor(Query, {}, forText), 'headers')[0]?.param, 'header');
  });

  test('every code of the vocabulary is produced, and nothing outside it', () => {
    const Any = Type.Object(
      {
        a: Type.Integer({ minimum: 0 }),
        b: Type.String({ format: 'uuid' }),
        c: Type.Enum(['x', 'y']),
        d: Type.Boolean(),
      },
      { additionalProperties: false },
    );
    const produced = new Set(
      toValidationDetails(errorsFor(Any, { a: -1, b: 'no', c: 'z', d: {}, e: 1 }), 'body').map((d) => d.code),
    );
    for (const code of toValidationDetails(errorsFor(Any, {}), 'body').map((d) => d.code)) produced.add(code);
    assert.deepEqual([...produced].sort(), [...VALIDATION_CODES].sort());

    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const errors = errorsFor(RoleBody, value);
        const details = toValidationDetails(errors, 'body');
        assert.equal(details.length > 0, errors.length > 0);
        assert.equal(new Set(details.map((d) => d.field)).size, details.length);
        for (const detail of details) {
          assert.ok((VALIDATION_CODES as readonly string[]).includes(detail.code), detail.code);
          assert.ok(detail.field !== '' && detail.message !== '' && detail.param === 'body');
        }
      }),
    );
  });
});
