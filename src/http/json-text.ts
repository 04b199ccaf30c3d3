/**
 * Responses assembled as JSON text from stored fragments (identities' cached text, baselines'
 * fingerprint text; docs/performance.md "Fix 6" and "Fix 13"). Fastify sends a string or a stream
 * with a JSON content type as it is, without the response schema's serializer; the schema stays
 * declared for the OpenAPI document and for the tests that validate these bodies against it.
 *
 * @example
 *   const serialize = lazySerializer<ApiIdentity>(reply, IdentitySchema);
 *   return sendJsonText(reply, `{"entries":[${texts.join(',')}]}`);
 */
import type { FastifyReply } from 'fastify';
import { textPartsStream } from './text-parts-stream.js';

const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * The route's serializer for one `schema` value, for the entries stored without their text:
 * compiled on first use only, and once per schema object (Fastify caches it by that object).
 */
export function lazySerializer<T>(reply: FastifyReply, schema: object): (value: T) => string {
  let serialize: ((value: Record<string, unknown>) => string) | undefined;
  return (value) => {
    serialize ??= reply.compileSerializationSchema(schema as Record<string, unknown>);
    return serialize(value as Record<string, unknown>);
  };
}

export function sendJsonText(reply: FastifyReply, text: string) {
  return reply.type(JSON_TYPE).send(text);
}

/**
 * The UTF-8 bytes of `parts` joined, each part encoded straight into one Buffer. A body of large
 * stored texts (a page of baseline fingerprints, 0.5 MB) is then neither joined into one string
 * nor flattened again to be measured and encoded as the socket takes it: one copy instead of
 * three, and no page-sized string to collect (docs/performance.md, "The rows the server sends
 * out"). Parts should be flat strings (as read from the database, JSON.stringify's output or a
 * slice of it): a part built with `+` is flattened into a copy of its own first.
 */
export function jsonBytes(parts: readonly string[]): Buffer {
  let length = 0;
  for (const part of parts) length += Buffer.byteLength(part);
  const body = Buffer.allocUnsafe(length);
  let offset = 0;
  for (const part of parts) offset += body.write(part, offset);
  return body;
}

/** A body of text parts sent as one Buffer (jsonBytes): the joined parts' bytes and Content-Length. */
export function sendJsonBytes(reply: FastifyReply, parts: readonly string[]) {
  return reply.type(JSON_TYPE).send(jsonBytes(parts));
}

/** A large body streamed part by part (text-parts-stream.ts), with the same bytes. */
export function sendJsonParts(reply: FastifyReply, parts: string[]) {
  return reply.type(JSON_TYPE).send(textPartsStream(parts));
}
