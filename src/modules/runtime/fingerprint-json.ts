/**
 * A baseline's fingerprint as the API's JSON text, rendered once when the baseline is written
 * (migration 0023, docs/performance.md "Fix 13"), so a page of baselines is spliced together
 * instead of parsing each stored jsonb and serializing it again through the response schema.
 *
 * The text is written by the serializer the route's response schema uses (fast-json-stringify,
 * compiled from the same FingerprintSchema with the shared process schema), so it is the route's
 * bytes by construction, coercions included. A fingerprint the serializer refuses (a required
 * property missing) gets no text: the route answers it the old way, which refuses it too.
 *
 * @example
 *   fingerprintJson(fingerprint) // '{"apiVersion":"v1","kind":"Fingerprint","metadata":{...},...}' or null
 */
import fastJson from 'fast-json-stringify';
import type { Fingerprint } from '../../engines/runtime/index.js';
import {
  FINGERPRINT_PROCESS_ID,
  FingerprintProcessSchema,
  FingerprintSchema,
} from './fingerprint-schemas.js';

const serialize = fastJson(FingerprintSchema, {
  schema: { [FINGERPRINT_PROCESS_ID]: FingerprintProcessSchema },
});

/** The API's text of `fingerprint`, or null when the response serializer refuses it. */
export function fingerprintJson(fingerprint: Fingerprint): string | null {
  try {
    return serialize(fingerprint);
  } catch {
    return null;
  }
}
