/**
 * Turns a generator of text chunks into a response stream whose first chunk is already computed.
 * The caller awaits that first chunk before answering, so a failing query is an ordinary error
 * response rather than a 200 cut short; destroying the stream (the client went away) returns the
 * generator, which closes its database cursor.
 *
 * @example
 *   const stream = await primedStream(chunks()); // throws what the first chunk throws
 *   return reply.type('text/csv').send(stream);
 */
import { Readable } from 'node:stream';

export async function primedStream(chunks: AsyncGenerator<string | Buffer>): Promise<Readable> {
  const first = await chunks.next();
  let pending: string | Buffer | null = first.done ? null : first.value;
  let done = first.done === true;
  return new Readable({
    async read() {
      try {
        if (pending !== null) {
          const chunk = pending;
          pending = null;
          this.push(chunk);
          return;
        }
        if (done) {
          this.push(null);
          return;
        }
        const next = await chunks.next();
        done = next.done === true;
        this.push(next.done ? null : next.value);
      } catch (error) {
        this.destroy(error instanceof Error ? error : new Error(String(error)));
      }
    },
    destroy(error, callback) {
      chunks.return(undefined).then(
        () => callback(error),
        (returnError: unknown) => callback(error ?? (returnError as Error)),
      );
    },
  });
}
