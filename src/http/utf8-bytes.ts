/**
 * The UTF-8 bytes of text pieces joined, each piece encoded straight into one Buffer. A body made
 * of large stored texts (an identity with its raw RBAC objects, text-parts-stream.ts)
 * is then neither joined into one string nor flattened again to be measured and encoded for the
 * socket: one copy of the bytes instead of three, and no body-sized string to collect
 * (docs/performance.md, "The rows the server sends out"). Pieces should be flat strings (as read
 * from the database, JSON.stringify's output or a slice of it): a piece built with `+` or a
 * template is flattened into a copy of its own first.
 *
 * @example
 *   utf8Bytes(['{"a":', storedText, '}']) // the bytes of '{"a":' + storedText + '}'
 */
export function utf8Bytes(pieces: readonly string[]): Buffer {
  let length = 0;
  for (const piece of pieces) length += Buffer.byteLength(piece);
  const bytes = Buffer.allocUnsafe(length);
  let offset = 0;
  for (const piece of pieces) offset += bytes.write(piece, offset);
  return bytes;
}
