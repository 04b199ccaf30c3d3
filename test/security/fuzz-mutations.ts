/**
 * Mutations of a valid request: each takes one generated request and returns an arbitrary of
 * spoiled ones (wrong types, hostile numbers and text, injection strings in the grammar
 * parameters, duplicated and unknown parameters, another method, malformed or deeply nested or
 * oversized bodies, wrong content types and encodings, odd Accept headers), or undefined when it
 * does not apply to the request's operation.
 */
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import {
  deeplyNested,
  HOSTILE_NUMBERS,
  hostileEncoded,
  hostileString,
  INJECTIONS,
  MALFORMED_JSON,
  percentEncode,
  WRONG_CONTENT_TYPES,
} from './fuzz-hostile.js';
import { isRawBodyRoute } from './fuzz-ingest-bodies.js';
import { documentedColumns, type FuzzRequest } from './fuzz-requests.js';
import type { Method, Parameter } from './openapi-operations.js';

type Mutation = (request: FuzzRequest) => fc.Arbitrary<FuzzRequest> | undefined;

/** JSON routes take 1 MiB (src/app.ts): one byte more than that, built once. */
const OVERSIZED_JSON = Buffer.from(`{"name":"${'a'.repeat(1024 * 1024)}"}`);

const queryParameters = (request: FuzzRequest): Parameter[] =>
  request.op.parameters.filter((p) => p.in === 'query');

const withQuery = (request: FuzzRequest, name: string, value: string, kind: string): FuzzRequest => ({
  ...request,
  query: [...request.query.filter(([n]) => n !== name), [name, value]],
  kind,
});

const numberLike: Mutation = (request) => {
  const numeric = queryParameters(request).filter((p) =>
    ['integer', 'number', 'boolean'].includes(p.schema.type),
  );
  if (numeric.length === 0) return undefined;
  return fc
    .tuple(fc.constantFrom(...numeric), fc.constantFrom(...HOSTILE_NUMBERS))
    .map(([p, value]) => withQuery(request, p.name, percentEncode(value), 'hostile number'));
};

const hostilePath: Mutation = (request) => {
  const names = Object.keys(request.pathValues);
  if (names.length === 0) return undefined;
  return fc
    .tuple(fc.constantFrom(...names), fc.oneof(hostileEncoded, fc.constant('x'.repeat(10_000))))
    .map(([name, value]) => ({
      ...request,
      pathValues: { ...request.pathValues, [name]: value },
      kind: 'hostile path',
    }));
};

const hostileQuery: Mutation = (request) => {
  const names = queryParameters(request).map((p) => p.name);
  if (names.length === 0) return undefined;
  return fc
    .tuple(fc.constantFrom(...names), hostileEncoded)
    .map(([name, value]) => withQuery(request, name, value, 'hostile query'));
};

const GRAMMAR_PARAMETERS = new Set(['filters', 'sort', 'columns', 'q']);

/** Injection strings where the server parses a grammar or builds a pattern. */
const injection: Mutation = (request) => {
  const byName = new Map(queryParameters(request).map((p) => [p.name, p]));
  const op = request.op;
  const choices: fc.Arbitrary<[string, string]>[] = [];
  const inj = fc.oneof(fc.constantFrom(...INJECTIONS), hostileString);
  if (byName.has('filters')) {
    const key = fc.constantFrom(...(op.filterKeys.length > 0 ? op.filterKeys : ['name']));
    choices.push(
      fc.tuple(key, inj).map(([k, v]): [string, string] => ['filters', `${k}:${v}`]),
      fc.tuple(inj, inj).map(([k, v]): [string, string] => ['filters', `${k}:${v}`]),
      inj.map((v): [string, string] => ['filters', v]),
    );
  }
  if (byName.has('sort')) {
    const field = fc.constantFrom(...(op.sortFields.length > 0 ? op.sortFields : ['name']));
    choices.push(
      inj.map((v): [string, string] => ['sort', v]),
      fc.tuple(field, inj).map(([f, v]): [string, string] => ['sort', `${f}:${v}`]),
      fc.tuple(field, inj).map(([f, v]): [string, string] => ['sort', `${f},${v}`]),
    );
  }
  const columns = byName.get('columns');
  if (columns) {
    const column = fc.constantFrom(...documentedColumns(columns));
    choices.push(
      fc.tuple(column, inj).map(([c, v]): [string, string] => ['columns', `${c};${v}`]),
      fc.tuple(column, inj).map(([c, v]): [string, string] => ['columns', `${v};${c};${c}`]),
      inj.map((v): [string, string] => ['columns', v]),
    );
  }
  if (byName.has('q') || choices.length === 0) {
    // `q` where it is documented; elsewhere it is an unknown parameter, which must be harmless too
    choices.push(inj.map((v): [string, string] => ['q', v]));
  }
  return fc
    .oneof(...choices)
    .map(([name, value]) => withQuery(request, name, percentEncode(value), `injection in ${name}`));
};

const duplicated: Mutation = (request) => {
  const names = queryParameters(request).map((p) => p.name);
  if (names.length === 0) return undefined;
  return fc
    .tuple(
      fc.constantFrom(...names),
      fc.oneof(fc.constantFrom('1', 'true', 'name', 'a:b', ''), hostileEncoded),
      fc.nat(3),
    )
    .map(([name, value, copies]) => {
      const first = request.query.find(([n]) => n === name)?.[1] ?? '1';
      const extra = Array.from({ length: copies + 1 }, (): [string, string] => [name, value]);
      return { ...request, query: [...request.query, [name, first], ...extra], kind: 'duplicated parameter' };
    });
};

const UNKNOWN_NAMES = [
  'foo',
  '__proto__',
  'constructor',
  'prototype',
  'limit[]',
  'a[b]',
  'filters[k]',
  'toString',
  '%00',
  '%ED%A0%80',
  '',
  '=',
  'x'.repeat(300),
];
const unknownParameter: Mutation = (request) =>
  fc
    .array(fc.tuple(fc.constantFrom(...UNKNOWN_NAMES), fc.oneof(fc.constant('1'), hostileEncoded)), {
      minLength: 1,
      maxLength: 3,
    })
    .map((pairs) => ({ ...request, query: [...request.query, ...pairs], kind: 'unknown parameter' }));

const METHODS: Method[] = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH'];
const otherMethod: Mutation = (request) =>
  fc
    .constantFrom(...METHODS.filter((m) => m !== request.method))
    .map((method) => ({ ...request, method, kind: 'other method' }));

const jsonBody = (
  request: FuzzRequest,
  payload: string | Buffer,
  contentType: string,
  kind: string,
): FuzzRequest => ({
  ...request,
  headers: { ...request.headers, 'content-type': contentType },
  payload,
  kind,
});

const malformedJson: Mutation = (request) =>
  fc
    .constantFrom(...MALFORMED_JSON)
    .map((payload) => jsonBody(request, payload, 'application/json', 'malformed JSON'));

const wrongContentType: Mutation = (request) =>
  fc
    .constantFrom(...WRONG_CONTENT_TYPES)
    .map((type) => jsonBody(request, request.payload ?? '{"a":1}', type, 'wrong content type'));

/** A valid JSON body with one field spoiled: removed, of another type, hostile, or unknown. */
const spoiledField: Mutation = (request) => {
  if (typeof request.payload !== 'string' || !request.payload.startsWith('{')) return undefined;
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(request.payload);
  } catch {
    return undefined; // NDJSON: the line-level mutations are the malformed-JSON ones
  }
  const keys = Object.keys(body);
  const replacement = fc.oneof(
    fc.jsonValue({ maxDepth: 2 }),
    hostileString,
    fc.constantFrom(-1, 2 ** 53 + 1, 1e308, -1e308, 0.5, '', [], {}, null, true),
  );
  return fc
    .tuple(
      fc.constantFrom('remove', 'replace', 'unknown', 'array'),
      fc.constantFrom(...(keys.length > 0 ? keys : ['x'])),
      replacement,
    )
    .map(([how, key, value]) => {
      const spoiled: Record<string, unknown> = { ...body };
      if (how === 'remove') delete spoiled[key];
      else if (how === 'replace') spoiled[key] = value;
      else if (how === 'unknown') spoiled[`${key}_extra`] = value;
      const text = JSON.stringify(how === 'array' ? [spoiled] : spoiled);
      return jsonBody(
        request,
        text,
        request.headers['content-type'] ?? 'application/json',
        `spoiled body (${how})`,
      );
    });
};

const deepNesting: Mutation = (request) =>
  fc.tuple(fc.constantFrom(100, 1_000, 10_000, 100_000), fc.boolean()).map(([depth, objects]) => {
    const nested = deeplyNested(depth, objects);
    // on the Kubernetes route the depth sits inside an object the engine stores
    const payload = request.op.path.endsWith('/ingest/kubernetes')
      ? `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"deep","namespace":"default","uid":"${randomUUID()}","resourceVersion":"1"},"data":${nested}}`
      : nested;
    return jsonBody(request, payload, 'application/json', `deep nesting (${depth})`);
  });

const oversized: Mutation = (request) =>
  isRawBodyRoute(request.op)
    ? undefined // 64 MiB bodies are sent by the suite's own test, a few times, not thousands
    : fc.constant(jsonBody(request, OVERSIZED_JSON, 'application/json', 'oversized body'));

const badEncoding: Mutation = (request) => {
  if (!isRawBodyRoute(request.op)) return undefined;
  return fc
    .tuple(
      fc.constantFrom('gzip', 'x-gzip', 'br', 'deflate', 'gzip, gzip', 'identity', '*'),
      fc.constantFrom('plain', 'magic'),
    )
    .map(([encoding, payload]) => ({
      ...request,
      headers: { ...request.headers, 'content-encoding': encoding },
      // gzip's magic bytes followed by garbage: a truncated or forged stream
      payload:
        payload === 'magic' ? Buffer.from([0x1f, 0x8b, 0x08, 0, 1, 2, 3, 4, 5]) : (request.payload ?? 'x'),
      kind: 'bad content encoding',
    }));
};

const ACCEPTS = [
  'text/csv',
  'application/xml',
  '*/*;q=0',
  'text/csv;q=0.5, application/json',
  'text/*',
  ';;',
  'application/json;q=abc',
  'image/*',
];
const oddAccept: Mutation = (request) =>
  fc
    .constantFrom(...ACCEPTS)
    .map((accept) => ({ ...request, headers: { ...request.headers, accept }, kind: 'odd Accept' }));

const badContentLength: Mutation = (request) =>
  request.payload === undefined
    ? undefined
    : fc.constantFrom('abc', '-1', '0', '1', '99999999999999999999').map((length) => ({
        ...request,
        headers: { ...request.headers, 'content-length': length },
        kind: 'bad content-length',
      }));

/** Every mutation with its weight in the mix. */
export const MUTATIONS: [Mutation, number][] = [
  [numberLike, 3],
  [hostilePath, 3],
  [hostileQuery, 3],
  [injection, 8],
  [duplicated, 2],
  [unknownParameter, 2],
  [otherMethod, 1],
  [malformedJson, 2],
  [wrongContentType, 2],
  [spoiledField, 3],
  [deepNesting, 1],
  [oversized, 1],
  [badEncoding, 2],
  [oddAccept, 1],
  [badContentLength, 1],
];

/** The request as generated (weight `validWeight`) or spoiled by one applicable mutation. */
export function mutatedOrValid(request: FuzzRequest, validWeight: number): fc.Arbitrary<FuzzRequest> {
  // injection is aimed at the grammar parameters; on a route without any it is one unknown `q`
  const grammar = queryParameters(request).some((p) => GRAMMAR_PARAMETERS.has(p.name));
  const applicable = MUTATIONS.flatMap(([mutation, weight]) => {
    const arbitrary = mutation(request);
    return arbitrary ? [{ arbitrary, weight: mutation === injection && !grammar ? 1 : weight }] : [];
  });
  return fc.oneof({ arbitrary: fc.constant(request), weight: validWeight }, ...applicable);
}
