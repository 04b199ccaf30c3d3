/**
 * A response body already computed as text parts, sent part by part. Joining a body of a megabyte
 * (an identities page) into one string and handing it to the socket costs two whole copies per
 * request in flight: the flat string, then its UTF-8 bytes queued on the socket until the client
 * has read them. Streamed, each part is encoded when the socket asks for more, and released once
 * it is sent (docs/performance.md, "Server memory").
 *
 * Everything is computed before the stream is made, so a failure is still an ordinary error
 * response, never a 200 cut short.
 *
 * @example
 *   return reply.type('application/json; charset=utf-8').send(textPartsStream(['{"a":', '1}']));
 */
import { Readable } from 'node:stream';

export function textPartsStream(parts: (string | undefined)[]): Readable {
  let next = 0;
  return new Readable({
    read() {
      // One part per call: the stream asks again only once its buffer has room.
      let part = '';
      // An empty chunk would not ask for the next one: skip it.
      while (part === '' && next < parts.length) {
        part = parts[next] as string;
        parts[next] = undefined; // the text (and the rows it points into) can go once sent
        next++;
      }
      this.push(part === '' ? null : part, 'utf8');
    },
  });
}
