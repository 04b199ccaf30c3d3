/**
 * fast-check arbitraries for the values a JSON Schema of /openapi.json accepts: the "valid" half of
 * the fuzz suite. Only the keywords the document uses are understood (type, enum, const, anyOf,
 * oneOf, string lengths, pattern, date-time, integer bounds, arrays, objects with required keys);
 * an unknown or empty schema yields a small JSON value. `known` offers real values by field name
 * (ids of the populated tenant), so valid requests name objects that exist.
 *
 * @example
 *   fc.sample(schemaValue({ type: 'integer', minimum: 1, maximum: 1000 }), 3) // [17, 1, 998]
 */
import fc from 'fast-check';
import type { JsonSchema } from './openapi-operations.js';

/** Real values for a field name (the populated tenant's ids, names, namespaces). */
export type KnownValues = (field: string) => readonly string[];

const noneKnown: KnownValues = () => [];

/** Generated strings stay short: long ones only slow the run and are the mutations' business. */
const MAX_GENERATED_LENGTH = 40;

function stringOf(schema: JsonSchema): fc.Arbitrary<string> {
  const minLength: number = schema.minLength ?? 0;
  const maxLength: number = schema.maxLength ?? Number.POSITIVE_INFINITY;
  const fits = (value: string) => value.length >= minLength && value.length <= maxLength;
  if (schema.format === 'date-time') {
    return fc
      .date({
        min: new Date('2000-01-01T00:00:00Z'),
        max: new Date('2100-01-01T00:00:00Z'),
        noInvalidDate: true,
      })
      .map((date) => date.toISOString());
  }
  if (typeof schema.pattern === 'string') {
    return fc.stringMatching(new RegExp(schema.pattern), { size: 'small' }).filter(fits);
  }
  return fc.string({ minLength, maxLength: Math.max(minLength, Math.min(maxLength, MAX_GENERATED_LENGTH)) });
}

function integerOf(schema: JsonSchema): fc.Arbitrary<number> {
  const min: number = schema.minimum ?? -1_000_000;
  const max: number = schema.maximum ?? 1_000_000;
  // Mostly small values near the lower bound (page 1, limit 10), sometimes anywhere in range.
  return fc.oneof(
    { arbitrary: fc.integer({ min, max: Math.min(max, min + 20) }), weight: 4 },
    fc.integer({ min, max }),
  );
}

function objectOf(schema: JsonSchema, known: KnownValues): fc.Arbitrary<Record<string, unknown>> {
  const properties: Record<string, JsonSchema> = schema.properties ?? {};
  const model = Object.fromEntries(
    Object.entries(properties).map(([name, inner]) => [name, schemaValue(inner, known, name)]),
  );
  const requiredKeys: string[] = (schema.required ?? []).filter((name: string) => name in properties);
  const record = fc.record(model, { requiredKeys });
  const extra = schema.additionalProperties;
  if (Object.keys(properties).length === 0 && extra !== false) {
    // a free-form map (an integration's config): a few string-keyed JSON values
    return fc.dictionary(fc.string({ minLength: 1, maxLength: 12 }), fc.jsonValue({ maxDepth: 2 }), {
      maxKeys: Math.min(schema.maxProperties ?? 4, 4),
    });
  }
  return record as fc.Arbitrary<Record<string, unknown>>;
}

/** An arbitrary of the values `schema` accepts; `field` names the value for `known` look-ups. */
export function schemaValue(
  schema: JsonSchema,
  known: KnownValues = noneKnown,
  field = '',
): fc.Arbitrary<unknown> {
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...schema.enum);
  const variants: JsonSchema[] | undefined = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(variants))
    return fc.oneof(...variants.map((variant) => schemaValue(variant, known, field)));
  if (Array.isArray(schema.type)) {
    return fc.oneof(...schema.type.map((type: string) => schemaValue({ ...schema, type }, known, field)));
  }
  switch (schema.type) {
    case 'string': {
      const real = known(field).filter((value) => value.length <= (schema.maxLength ?? Infinity));
      const generated = stringOf(schema);
      return real.length > 0
        ? fc.oneof({ arbitrary: fc.constantFrom(...real), weight: 3 }, generated)
        : generated;
    }
    case 'integer':
      return integerOf(schema);
    case 'number':
      return fc.double({
        min: schema.minimum ?? -1e6,
        max: schema.maximum ?? 1e6,
        noNaN: true,
        noDefaultInfinity: true,
      });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return fc.array(schemaValue(schema.items ?? {}, known, field), {
        minLength: schema.minItems ?? 0,
        maxLength: Math.max(schema.minItems ?? 0, Math.min(schema.maxItems ?? 4, 4)),
      });
    case 'object':
      return objectOf(schema, known);
    default:
      return schema.properties ? objectOf(schema, known) : fc.jsonValue({ maxDepth: 2 });
  }
}

/** How a value travels in a query string or a header: arrays comma-joined, as clients send them. */
export const asText = (value: unknown): string =>
  Array.isArray(value)
    ? value.map(asText).join(',')
    : typeof value === 'string'
      ? value
      : JSON.stringify(value);
