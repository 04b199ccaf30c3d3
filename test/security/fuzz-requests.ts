/**
 * Valid requests of the fuzz suite, generated per operation of /openapi.json: path values that
 * name the populated tenant's real objects, documented query parameters with values of their
 * schema (grammar parameters `filters`, `sort`, `columns` and time parameters built from what the
 * parameter's description documents), and bodies from the body schema (or, for raw-body routes,
 * from fuzz-ingest-bodies.ts). The mutations (fuzz-mutations.ts) start from these.
 */
import fc from 'fast-check';
import { percentEncode } from './fuzz-hostile.js';
import { type RawBody, rawBodyOf } from './fuzz-ingest-bodies.js';
import { asText, type KnownValues, schemaValue } from './fuzz-schema.js';
import { type Method, type Operation, type Parameter, pathParameterNames } from './openapi-operations.js';

export interface FuzzRequest {
  method: Method;
  op: Operation;
  /** path parameter -> value, percent-encoded */
  pathValues: Record<string, string>;
  /** query pairs, percent-encoded, in order (a name may repeat) */
  query: [string, string][];
  headers: Record<string, string>;
  payload?: string | Buffer;
  /** what this request is (`valid`, or the mutation applied), for the figures */
  kind: string;
}

/** What the generator knows of the populated tenant. */
export interface FuzzContext {
  known: KnownValues;
  /** path values that answer 2xx to the tenant's admin, per `METHOD path` */
  hits: ReadonlyMap<string, Record<string, string>>;
  /** candidate values of a path parameter of an operation (harvested ids) */
  candidates(op: Operation, name: string): readonly string[];
}

export function urlOf(request: FuzzRequest): string {
  const path = request.op.path.replace(/\{([^}]+)\}/g, (_, name: string) => request.pathValues[name] ?? '');
  const query = request.query.map(([name, value]) => `${name}=${value}`).join('&');
  return query ? `${path}?${query}` : path;
}

const TIME_PARAMETER = /^(from|to)(_|$)|_at$/;
const timeValue = fc.oneof(
  fc.constantFrom('now', 'now-15m', 'now-2h', 'now-7d', 'now-1w', 'now-30s'),
  fc
    .date({
      min: new Date('2020-01-01T00:00:00Z'),
      max: new Date('2030-01-01T00:00:00Z'),
      noInvalidDate: true,
    })
    .map((date) => date.toISOString()),
);

/** `key:value,...` from the keys the parameter documents, values of the tenant where known. */
function filtersValue(op: Operation, known: KnownValues): fc.Arbitrary<string> {
  const keys = op.filterKeys.length > 0 ? op.filterKeys : ['name'];
  const term = fc.constantFrom(...keys).chain((key) => {
    const values = known(key).slice(0, 30);
    const value =
      values.length > 0
        ? fc.oneof(fc.constantFrom(...values), fc.string({ maxLength: 8 }))
        : fc.string({ maxLength: 8 });
    // a comma inside a value travels escaped (`\,`), as the grammar documents
    return value.map((text) => `${key}:${text.replace(/\\/g, '').replace(/,/g, '\\,')}`);
  });
  return fc.array(term, { minLength: 1, maxLength: 3 }).map((terms) => terms.join(','));
}

const sortValue = (op: Operation): fc.Arbitrary<string> =>
  fc
    .tuple(
      fc.constantFrom(...(op.sortFields.length > 0 ? op.sortFields : ['name'])),
      fc.constantFrom('', ':asc', ':desc'),
    )
    .map(([field, direction]) => `${field}${direction}`);

/** The CSV columns the `columns` parameter documents ("default all: a;b;c"). */
export const documentedColumns = (parameter: Parameter): string[] =>
  /default all: ([a-z_;]+)/.exec(parameter.description)?.[1]?.split(';') ?? ['cve_name'];

function queryValue(op: Operation, parameter: Parameter, known: KnownValues): fc.Arbitrary<string> {
  const { name, schema } = parameter;
  if (name === 'filters') return filtersValue(op, known);
  if (name === 'sort') return sortValue(op);
  if (name === 'columns')
    return fc.subarray(documentedColumns(parameter), { minLength: 1 }).map((c) => c.join(';'));
  if (schema.type === 'string' && !schema.enum && TIME_PARAMETER.test(name)) return timeValue;
  if (schema.type === 'string' && /s$/.test(name) && !schema.maxLength) {
    // comma-separated lists (cluster_ids, identity_types, resource_types...)
    const values = [...known(name), ...known(name.replace(/s$/, ''))].slice(0, 30);
    if (values.length > 0)
      return fc
        .subarray(values, { minLength: 1, maxLength: Math.min(3, values.length) })
        .map((v) => v.join(','));
  }
  return schemaValue(schema, known, name).map(asText);
}

function pathValues(op: Operation, context: FuzzContext): fc.Arbitrary<Record<string, string>> {
  const names = pathParameterNames(op.path);
  const hit = context.hits.get(`${op.method} ${op.path}`);
  const pick = (name: string) => {
    const values = context.candidates(op, name).slice(0, 40);
    return values.length > 0
      ? fc.oneof({ arbitrary: fc.constantFrom(...values), weight: 4 }, fc.uuid())
      : fc.uuid();
  };
  const drawn = fc.record(Object.fromEntries(names.map((name) => [name, pick(name)]))) as fc.Arbitrary<
    Record<string, string>
  >;
  // owner hits first: most valid requests should reach the handler's success path
  const values = hit ? fc.oneof({ arbitrary: fc.constant(hit), weight: 3 }, drawn) : drawn;
  return values.map((raw) => Object.fromEntries(Object.entries(raw).map(([k, v]) => [k, percentEncode(v)])));
}

function queryPairs(op: Operation, known: KnownValues): fc.Arbitrary<[string, string][]> {
  const parameters = op.parameters.filter((p) => p.in === 'query');
  const each = parameters.map((parameter) => {
    const value = queryValue(op, parameter, known).map((v): [string, string] => [
      parameter.name,
      percentEncode(v),
    ]);
    return parameter.required
      ? value.map((pair) => [pair])
      : fc.option(value, { nil: undefined, freq: 2 }).map((p) => (p ? [p] : []));
  });
  return fc.tuple(...each).map((lists) => lists.flat() as [string, string][]);
}

function headers(op: Operation): fc.Arbitrary<Record<string, string>> {
  const named = (name: string) => op.parameters.some((p) => p.in === 'header' && p.name === name);
  // the console's own calls carry its header (src/http/csrf.ts)
  const fixed: Record<string, string> = named('x-posture-console') ? { 'x-posture-console': '1' } : {};
  if (op.parameters.some((p) => p.name === 'columns')) {
    // `columns` only shapes the CSV form of the answer: ask for it half of the time
    return fc.boolean().map((csv) => (csv ? { ...fixed, accept: 'text/csv' } : fixed));
  }
  if (!named('idempotency-key')) return fc.constant(fixed);
  return fc
    .option(fc.stringMatching(/^[\x21-\x7e]{1,40}$/), { nil: undefined })
    .map((key) => (key ? { ...fixed, 'idempotency-key': key } : fixed));
}

function body(op: Operation, known: KnownValues): fc.Arbitrary<RawBody | undefined> {
  const raw = rawBodyOf(op, known);
  if (raw) return raw;
  if (!op.bodySchema) return fc.constant(undefined);
  return schemaValue(op.bodySchema, known).map((value) => ({
    payload: JSON.stringify(value),
    contentType: 'application/json',
  }));
}

/** An arbitrary of valid requests for one operation (the caller is added by the suite). */
export function validRequest(op: Operation, context: FuzzContext): fc.Arbitrary<FuzzRequest> {
  return fc
    .record({
      pathValues: pathValues(op, context),
      query: queryPairs(op, context.known),
      headers: headers(op),
      body: body(op, context.known),
    })
    .map(({ pathValues, query, headers, body }) => ({
      method: op.method,
      op,
      pathValues,
      query,
      headers: body ? { ...headers, 'content-type': body.contentType } : headers,
      ...(body ? { payload: body.payload } : {}),
      kind: 'valid',
    }));
}
