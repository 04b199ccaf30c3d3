/**
 * The bytes of a feed file, decompressed when they are gzip (recognised by the magic bytes
 * 1f 8b, never by the file name), with the first bytes available for format detection before the
 * rest is streamed. Nothing is read beyond what detection needs until a reader pulls.
 */
import { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';

export type FeedSource = Readable | AsyncIterable<Uint8Array> | Uint8Array;

const GZIP_MAGIC = [0x1f, 0x8b];

/** An async byte stream whose first bytes can be looked at and then read again. */
export class PeekableBytes {
  private readonly buffered: Buffer[] = [];
  private done = false;

  constructor(
    private readonly iterator: AsyncIterator<Uint8Array>,
    private readonly onClose: () => void = () => {},
  ) {}

  /** Stops reading and releases the source (a file descriptor) when a reader gives up early. */
  async close(): Promise<void> {
    this.done = true;
    this.onClose();
    await this.iterator.return?.();
  }

  /** Reads until `enough(head)` holds or the stream ends; returns the bytes seen so far. */
  async peek(enough: (head: Buffer) => boolean): Promise<Buffer> {
    let head = Buffer.concat(this.buffered);
    while (!this.done && !enough(head)) {
      const next = await this.iterator.next();
      if (next.done) this.done = true;
      else {
        this.buffered.push(Buffer.from(next.value));
        head = Buffer.concat(this.buffered);
      }
    }
    return head;
  }

  /** Every byte, the peeked ones first. */
  async *chunks(): AsyncGenerator<Buffer> {
    yield* this.buffered.splice(0);
    while (!this.done) {
      const next = await this.iterator.next();
      if (next.done) this.done = true;
      else yield Buffer.from(next.value);
    }
  }
}

function iterate(source: FeedSource): AsyncIterator<Uint8Array> {
  if (source instanceof Uint8Array) return Readable.from([source])[Symbol.asyncIterator]();
  return source[Symbol.asyncIterator]();
}

/** The decompressed bytes of a feed, and whether it was gzip. */
export async function openFeedBytes(
  source: FeedSource,
): Promise<{ bytes: PeekableBytes; compressed: boolean }> {
  const raw = new PeekableBytes(iterate(source));
  const head = await raw.peek((bytes) => bytes.length >= 2);
  const compressed = head[0] === GZIP_MAGIC[0] && head[1] === GZIP_MAGIC[1];
  if (!compressed) return { bytes: raw, compressed };
  // Readable.from + pipe: a gunzip error surfaces on the iterator the readers consume.
  const gunzip = createGunzip();
  const input = Readable.from(raw.chunks());
  input.on('error', (error) => gunzip.destroy(error));
  input.pipe(gunzip);
  const close = () => {
    input.destroy();
    void raw.close();
  };
  return { bytes: new PeekableBytes(gunzip[Symbol.asyncIterator](), close), compressed };
}

/** True for errors zlib raises on corrupt or truncated gzip data (codes Z_DATA_ERROR, Z_BUF_ERROR...). */
export function isZlibError(error: unknown): error is Error & { code: string } {
  const code = error instanceof Error ? (error as Error & { code?: unknown }).code : undefined;
  return typeof code === 'string' && code.startsWith('Z_');
}
