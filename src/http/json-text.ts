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
import { type TextPart, textPartsStream } from './text-parts-stream.js';
import { utf8Bytes } from './utf8-bytes.js';

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

/** A body of text pieces sent as one Buffer (utf8-bytes.ts): the joined pieces' bytes and Content-Length. */
export function sendJsonBytes(reply: FastifyReply, parts: readonly string[]) {
  return reply.type(JSON_TYPE).send(utf8Bytes(parts));
}

/** A large body streamed part by part (text-parts-stream.ts), with the same bytes. */
export function sendJsonParts(reply: FastifyReply, parts: TextPart[]) {
  return reply.type(JSON_TYPE).send(textPartsStream(parts));
}
