/**
 * Stable identities of groups and findings: hashes of what they are about, never of when they were
 * computed, so the same problem evaluated again (another push, a restart, another engine version
 * with the same rule) has the same fingerprint and is recognised as already known.
 *
 * @example
 *   findingFingerprint(draft) // 'f2c1...' (64 hex digits)
 */
import { hash } from 'node:crypto';
import type { FindingDraft } from './types.js';

const digest = (parts: readonly string[]): string => hash('sha256', JSON.stringify(parts), 'hex');

/** A group is one rule on one source object of one cluster. */
export const groupKey = (draft: Pick<FindingDraft, 'clusterId' | 'rule' | 'source'>): string =>
  digest([draft.clusterId, draft.rule.id, draft.source.type, draft.source.id]);

/** A finding is one occurrence within its group (a container, a volume, a CVE in an image). */
export const findingFingerprint = (draft: FindingDraft): string =>
  digest([draft.clusterId, draft.rule.id, draft.source.type, draft.source.id, draft.detailKey]);
