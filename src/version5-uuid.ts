/**
 * The text of a name-based UUID (RFC 9562, version 5) from the SHA-1 digest of its name. Posture
 * derives ids from names wherever storage compares one computation with the next: the RBAC
 * engine's identities and graph edges (src/engines/rbac/ids.ts, hashing a namespace UUID and the
 * name as the RFC does) and the ingestion's containers, scan rows and runtime rows
 * (src/ingest/kubernetes/inventory.ts, hashing the name alone). Both keep their own hashing; this
 * is the layout they share.
 *
 * @example
 *   version5Uuid(hash('sha1', name, 'buffer')) // 'xxxxxxxx-xxxx-5xxx-[89ab]xxx-xxxxxxxxxxxx'
 */

/**
 * Sets the version (5) and variant (RFC) bits in the first 16 bytes of `digest`, which it
 * changes, and writes them as a UUID.
 */
export function version5Uuid(digest: Buffer): string {
  digest[6] = ((digest[6] ?? 0) & 0x0f) | 0x50;
  digest[8] = ((digest[8] ?? 0) & 0x3f) | 0x80;
  const hex = digest.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
