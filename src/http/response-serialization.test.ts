import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildResponseSerializer } from './response-serialization.js';

const route = (schema: unknown, url = '/things') => ({ schema, method: 'GET', url, httpStatus: '200' });

const error = {
  type: 'object',
  properties: { status: { type: 'integer' }, message: { type: 'string' } },
};

test('routes answering the same schema share one serializer, compiled once', () => {
  const compile = buildResponseSerializer({}, {});
  const first = compile(route(error, '/accounts'));
  const second = compile(route(structuredClone(error), '/clusters'));
  assert.equal(second, first);
  assert.notEqual(compile(route({ type: 'object', properties: { id: { type: 'string' } } })), first);
});

test('a scope with the same shared schemas gets the same compiler; other shared schemas, another', () => {
  const shared = { 'urn:error': { $id: 'urn:error', ...error } };
  assert.equal(buildResponseSerializer(shared, {}), buildResponseSerializer(structuredClone(shared), {}));
  assert.notEqual(buildResponseSerializer(shared, {}), buildResponseSerializer({}, {}));
});

test('the serializer writes what the schema says, as Fastify would: known fields, in schema types', () => {
  const serialize = buildResponseSerializer({}, {})(route(error));
  assert.equal(
    serialize({ status: 404, message: 'not found', secret: 'x' }),
    '{"status":404,"message":"not found"}',
  );
});

test('a reference to a shared schema resolves', () => {
  const shared = { 'urn:problem': { $id: 'urn:problem', ...error } };
  const serialize = buildResponseSerializer(shared, {})(route({ $ref: 'urn:problem#' }));
  assert.equal(serialize({ status: 400, message: 'bad', extra: 1 }), '{"status":400,"message":"bad"}');
});
