import type { ResourceRecord } from './api/types.js';

/** live: the current version; replaced: a newer version exists; deleted: the object is gone. */
export function recordState(record: Pick<ResourceRecord, 'deleted_at' | 'version_overwritten_at'>): string {
  if (record.deleted_at) return 'deleted';
  if (record.version_overwritten_at) return 'replaced';
  return 'live';
}
