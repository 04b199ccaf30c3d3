/**
 * A response body already computed as text parts, sent part by part. Joining a body of a megabyte
 * (an identities page) into one string and handing it to the socket costs two whole copies per
 * request in flight: the flat string, then its UTF-8 bytes queued on the socket until the client
 * has read them. Streamed, each part is encoded when the socket asks for more, and released once
 * it is sent (docs/performance.md, "Server memory").
 *
 * A part may also be given as pieces (an identity's text: its fields, stored texts, raw
 * objects), encoded together into one Buffer when its turn comes (utf8-bytes.ts), so that the
 * part is never joined into one string first.
 *
 * Everything is computed before the stream is made, so a failure is still an ordinary error
 * response, never a 200 cut short.
 *
 * @example
 *   return reply.type('application/json; charset=utf-8').send(textPartsStream(['{"a":', '1}']));
 */
import { Readable } from 'node:stream';
import { utf8Bytes } from './utf8-bytes.js';

/**
 * A part of the body: a text, the pieces of one (joined without a string in between), or bytes
 * already encoded (kept between responses, row-bytes-cache.ts), sent as they are.
 */
export type TextPart = string | readonly string[] | Buffer;

export function textPartsStream(parts: (TextPart | undefined)[]): Readable {
  let next = 0;
  return new Readable({
    read() {
      // One part per call: the stream asks again only once its buffer has room.
      let chunk: string | Buffer = '';
      // An empty chunk would not ask for the next one: skip it.
      while (chunk.length === 0 && next < parts.length) {
        const part = parts[next] as TextPart;
        parts[next] = undefined; // the text (and the rows it points into) can go once sent
        next++;
        chunk = typeof part === 'string' || Buffer.isBuffer(part) ? part : utf8Bytes(part);
      }
      if (chunk.length === 0) this.push(null);
      else if (typeof chunk === 'string') this.push(chunk, 'utf8');
      else this.push(chunk);
    },
  });
}
