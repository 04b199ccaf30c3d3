/**
 * A baseline's fingerprint as the API's JSON text, rendered once when the baseline is written
 * (migration 0023, docs/performance.md "Fix 13"), so a page of baselines is spliced together
 * instead of parsing each stored jsonb and serializing it again through the response schema.
 *
 * The text is what the response schema's serializer (fast-json-stringify) writes for the same
 * value: the schema's properties in the schema's order, nothing else. It is driven by the schema
 * itself, so a field added to FingerprintSchema is rendered without touching this file. It only
 * renders values that conform exactly (strings are strings, integers integers, every required
 * property present); for anything else it returns null and the baseline is answered the old way,
 * where the serializer's own coercions apply.
 *
 * @example
 *   fingerprintJson(fingerprint) // '{"apiVersion":"v1","kind":"Fingerprint","metadata":{...},...}' or null
 */
import type { Fingerprint } from '../../engines/runtime/index.js';
import {
  FINGERPRINT_PROCESS_ID,
  FingerprintProcessSchema,
  FingerprintSchema,
} from './fingerprint-schemas.js';

interface JsonSchema {
  type?: string;
  $ref?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
}

const REFS: Record<string, JsonSchema> = { [FINGERPRINT_PROCESS_ID]: FingerprintProcessSchema as JsonSchema };

class NotConforming extends Error {}

function render(schema: JsonSchema, value: unknown): string {
  if (schema.$ref !== undefined) {
    const target = REFS[schema.$ref];
    if (!target) throw new NotConforming(`unknown $ref ${schema.$ref}`);
    return render(target, value);
  }
  switch (schema.type) {
    case 'string':
      if (typeof value !== 'string') throw new NotConforming('string');
      return JSON.stringify(value);
    case 'integer':
      if (!Number.isInteger(value)) throw new NotConforming('integer');
      return String(value);
    case 'boolean':
      if (typeof value !== 'boolean') throw new NotConforming('boolean');
      return value ? 'true' : 'false';
    case 'array': {
      if (!Array.isArray(value) || !schema.items) throw new NotConforming('array');
      const items = schema.items;
      return `[${value.map((item: unknown) => render(items, item)).join(',')}]`;
    }
    case 'object': {
      if (typeof value !== 'object' || value === null || Array.isArray(value))
        throw new NotConforming('object');
      const record = value as Record<string, unknown>;
      const required = new Set(schema.required ?? []);
      const parts: string[] = [];
      for (const [key, property] of Object.entries(schema.properties ?? {})) {
        const field = record[key];
        if (field === undefined) {
          // the serializer refuses a missing required property: the old path answers that
          if (required.has(key)) throw new NotConforming(`missing ${key}`);
          continue;
        }
        parts.push(`${JSON.stringify(key)}:${render(property, field)}`);
      }
      return `{${parts.join(',')}}`;
    }
    default:
      throw new NotConforming(`schema type ${schema.type}`);
  }
}

/** The API's text of `fingerprint`, or null when it does not conform exactly to FingerprintSchema. */
export function fingerprintJson(fingerprint: Fingerprint): string | null {
  try {
    return render(FingerprintSchema as JsonSchema, fingerprint);
  } catch (error) {
    if (error instanceof NotConforming) return null;
    throw error;
  }
}
