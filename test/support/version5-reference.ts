/**
 * RFC 9562's version-5 layout written out for the stable-id tests, apart from the code under test
 * (src/version5-uuid.ts): the first 16 bytes of a SHA-1 digest, version nibble 5, variant bits 10.
 *
 * @example
 *   versionFiveText(createHash('sha1').update(name).digest())
 */
export function versionFiveText(digest: Buffer): string {
  const bytes = Buffer.from(digest.subarray(0, 16));
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x50;
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return [hex.slice(0, 8), hex.slice(8, 12), hex.slice(12, 16), hex.slice(16, 20), hex.slice(20)].join('-');
}
