/**
 * The app's request validator (request-validation.ts) on what the fuzz suite found: text that
 * coerces to a non-finite number (`Infinity`, `1e309`) passed ajv's integer bounds, and a number
 * beyond any bigint (`offset=1e29`) had no bound; both reached the database as a 500. Both are a
 * 400 naming the parameter, on every route with a number in its query.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Type } from 'typebox';
import { createTenant, startTestApp, type TestApp } from '../../test/support/harness.js';
import { buildRequestValidator } from './request-validation.js';

const Query = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })),
  offset: Type.Optional(Type.Integer({ minimum: 0, default: 0 })),
});

describe('request validation of text parts', () => {
  const validate = buildRequestValidator()({ schema: Query, httpPart: 'querystring' }) as ((
    data: unknown,
  ) => boolean) & { errors?: { instancePath: string; keyword: string }[] | null };

  test('Infinity, -Infinity and 1e309 are type errors, finite numbers still pass', () => {
    for (const text of ['Infinity', '-Infinity', '+Infinity', '1e309', '-1e309']) {
      assert.equal(validate({ limit: text }), false, text);
      assert.deepEqual(
        validate.errors?.map((e) => [e.instancePath, e.keyword]),
        [['/limit', 'type']],
      );
    }
    const query: Record<string, unknown> = { limit: '25', offset: '1e2' };
    assert.equal(validate(query), true);
    assert.deepEqual(query, { limit: 25, offset: 100 });
  });

  test('a number beyond 2^53 is out of range (offset=1e29 reached the database as a 500)', () => {
    for (const text of ['99999999999999999999999999999', '1e29', '9007199254740993']) {
      assert.equal(validate({ offset: text }), false, text);
      assert.deepEqual(
        validate.errors?.map((e) => [e.instancePath, e.keyword]),
        [['/offset', 'maximum']],
      );
    }
    assert.equal(validate({ offset: '9007199254740991' }), true);
  });

  test('a bound error is still reported as such', () => {
    assert.equal(validate({ limit: '1001' }), false);
    assert.deepEqual(
      validate.errors?.map((e) => e.keyword),
      ['maximum'],
    );
  });
});

describe('non-finite numbers over HTTP', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  test('limit=Infinity and offset=-1e309 are 400 naming the parameter, not 500', async () => {
    const tenant = await createTenant(t);
    for (const [query, field] of [
      ['limit=Infinity', 'limit'],
      ['offset=-1e309', 'offset'],
    ]) {
      const res = await t.request({ method: 'GET', url: `/accounts?${query}`, token: tenant.adminToken });
      assert.equal(res.status, 400, res.text);
      assert.equal(res.body.code, 'validation_failed');
      assert.deepEqual(
        res.body.validation_details.map((d: { field: string; code: string }) => [d.field, d.code]),
        [[field, 'invalid_type']],
      );
    }
    const far = await t.request({
      method: 'GET',
      url: '/accounts?offset=99999999999999999999999999999',
      token: tenant.adminToken,
    });
    assert.equal(far.status, 400, far.text);
    assert.equal(far.body.validation_details[0].code, 'out_of_range');
    const page = await t.request({
      method: 'GET',
      url: `/accounts/${tenant.accountId}/clusters?page=-Infinity`,
      token: tenant.adminToken,
    });
    assert.equal(page.status, 400, page.text);
  });
});
