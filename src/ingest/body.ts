/**
 * The raw body of an ingestion push: up to 64 MiB on the wire, gzip allowed (announced with
 * `Content-Encoding: gzip` or recognised by its magic bytes), decompressed under a bound so a
 * small gzip bomb is refused with 413 instead of exhausting memory.
 *
 * @example
 *   const bytes = await decodeIngestBody(request.body, request.headers['content-encoding']);
 *   const text = bodyText(bytes);
 */
import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';
import { ApiError } from '../http/errors.js';

const MiB = 1024 * 1024;
/** What the wire may carry (DESIGN.md 5: ingestion bodies up to 64 MiB). */
export const INGEST_BODY_LIMIT = 64 * MiB;
/** What a gzip body may expand to: everything is parsed in memory, so this bounds the process. */
export const INGEST_DECOMPRESSED_LIMIT = 256 * MiB;

const gunzipAsync = promisify(gunzip);

const isGzip = (bytes: Buffer): boolean => bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b;

const bodyError = (message: string, code: 'required' | 'invalid_format' = 'invalid_format') =>
  ApiError.validation([{ code, field: 'body', message, param: 'body' }]);

export async function decodeIngestBody(
  raw: unknown,
  contentEncoding: string | undefined,
  decompressedLimit: number = INGEST_DECOMPRESSED_LIMIT,
): Promise<Buffer> {
  const bytes = Buffer.isBuffer(raw) ? raw : Buffer.alloc(0);
  const encoding = (contentEncoding ?? 'identity').trim().toLowerCase();
  if (encoding !== 'identity' && encoding !== 'gzip' && encoding !== 'x-gzip') {
    throw new ApiError(
      'unsupported_media_type',
      `Content-Encoding ${encoding} is not supported; send gzip or an uncompressed body`,
    );
  }
  if (bytes.length === 0) throw bodyError('is empty', 'required');
  if (encoding === 'identity' && !isGzip(bytes)) return bytes;
  try {
    const inflated = await gunzipAsync(bytes, { maxOutputLength: decompressedLimit });
    if (inflated.length === 0) throw bodyError('is empty once decompressed', 'required');
    return inflated;
  } catch (error) {
    if (error instanceof ApiError) throw error;
    if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') {
      throw new ApiError(
        'payload_too_large',
        `the decompressed body exceeds ${Math.floor(decompressedLimit / MiB)} MiB`,
      );
    }
    throw bodyError('is not valid gzip data');
  }
}

/** UTF-8 text of a body, without a leading byte-order mark. */
export function bodyText(bytes: Buffer): string {
  const text = bytes.toString('utf8');
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}
