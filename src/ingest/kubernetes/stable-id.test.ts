/**
 * The ingestion's stable ids are stored: a container row, a package, a CVE report row and a
 * runtime row keep their ids across pushes and releases, so `stableId` may change only in how
 * fast it is. These pin ids made by the implementation before it shared its UUID layout with the
 * RBAC engine's (src/version5-uuid.ts), and compare it with the same definition written out with
 * a Hash object.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import fc from 'fast-check';
import { versionFiveText } from '../../../test/support/version5-reference.js';
import { stableId } from './inventory.js';

/** SHA-1 of the parts joined with NUL, version and variant bits set, in UUID form. */
function joinedNameUuid(parts: readonly string[]): string {
  return versionFiveText(createHash('sha1').update(parts.join('\u0000'), 'utf8').digest());
}

test('ids stored by earlier releases come out the same', () => {
  assert.equal(stableId('container', 'c1', 'pod-uid', 'app'), 'fe156be5-e82c-585f-b751-c622c984721a');
  assert.equal(
    stableId('vulnerability-cve', 'acct', 'CVE-2024-1234', 'pkg'),
    'b746ec9f-84f4-5b04-aadc-cc1c0d0b8622',
  );
  assert.equal(stableId('x', 'ünïcode 漢字 🚀'), '36793a86-21c2-5a22-b884-4dbbeb9fa177');
  assert.equal(stableId(), 'da39a3ee-5e6b-5b0d-b255-bfef95601890');
});

test('every id is the SHA-1 of its parts joined with NUL, in the version-5 layout', () => {
  fc.assert(
    fc.property(fc.array(fc.string({ unit: 'binary', maxLength: 80 }), { maxLength: 6 }), (parts) => {
      assert.equal(stableId(...parts), joinedNameUuid(parts));
    }),
    { numRuns: 300 },
  );
});
