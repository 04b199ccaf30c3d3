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
import { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';
import { type TextPart, textPartsStream } from './text-parts-stream.js';

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
 * A body of pieces already in memory, sent with its Content-Length, piece by piece: a piece given
 * as bytes (a baseline's cached fingerprint, row-bytes-cache.ts) goes to the socket as it is.
 * Joined into one Buffer, every response allocated its whole body (0.9 MB for 20 baselines) and
 * copied it there: page faults on the fresh memory, and the collector's major marking driven by
 * that external memory, were a third of the server's CPU (docs/performance.md, "Fix 31").
 */
export function sendJsonPieces(reply: FastifyReply, pieces: readonly (string | Buffer)[]) {
  let length = 0;
  for (const piece of pieces) length += typeof piece === 'string' ? Buffer.byteLength(piece) : piece.length;
  // Written as they are pushed: the socket gathers what queues behind a pending write into one writev.
  const body = new Readable({
    read() {
      for (const piece of pieces) this.push(piece);
      this.push(null);
    },
  });
  return reply.type(JSON_TYPE).header('content-length', length).send(body);
}

/**
 * A body of small pieces (list entries of a few hundred bytes each, kept as bytes) joined into one
 * Buffer: one copy of each piece, against the stream machinery's work per piece that
 * sendJsonPieces does to spare a copy of pieces tens of kilobytes each.
 */
export function sendJsonJoined(reply: FastifyReply, pieces: readonly (string | Buffer)[]) {
  const buffers = pieces.map((piece) => (typeof piece === 'string' ? Buffer.from(piece) : piece));
  return reply.type(JSON_TYPE).send(Buffer.concat(buffers));
}

/** A large body streamed part by part (text-parts-stream.ts), with the same bytes. */
export function sendJsonParts(reply: FastifyReply, parts: TextPart[]) {
  return reply.type(JSON_TYPE).send(textPartsStream(parts));
}
