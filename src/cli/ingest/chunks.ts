/**
 * Splits what a file holds into pushes. One JSON document is one push; NDJSON streams (watch
 * events, runtime events) are cut at line boundaries into pushes of at most `maxBytes`, so a
 * large stream neither hits the server's body limit nor holds one huge transaction.
 */
import { gunzipSync } from 'node:zlib';

export const DEFAULT_CHUNK_BYTES = 8 * 1024 * 1024;

export interface Chunk {
  text: string;
  /** 1-based line range in the file, for NDJSON chunks */
  lines?: [number, number];
}

export function readMaybeGzip(bytes: Buffer): string {
  const gzip = bytes.length > 2 && bytes[0] === 0x1f && bytes[1] === 0x8b;
  return (gzip ? gunzipSync(bytes) : bytes).toString('utf8');
}

export function isNdjson(text: string): boolean {
  try {
    JSON.parse(text);
    return false;
  } catch {
    return true;
  }
}

export function splitNdjson(text: string, maxBytes = DEFAULT_CHUNK_BYTES): Chunk[] {
  const lines = text.split('\n');
  const chunks: Chunk[] = [];
  let current: string[] = [];
  let size = 0;
  let start = 1;
  lines.forEach((line, index) => {
    const bytes = Buffer.byteLength(line) + 1;
    if (current.length > 0 && size + bytes > maxBytes) {
      chunks.push({ text: current.join('\n'), lines: [start, index] });
      current = [];
      size = 0;
      start = index + 1;
    }
    current.push(line);
    size += bytes;
  });
  if (current.some((line) => line.trim() !== '')) {
    chunks.push({ text: current.join('\n'), lines: [start, lines.length] });
  }
  return chunks;
}
