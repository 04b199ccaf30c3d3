/**
 * Stable ids are stored: an identity, an RBAC object, a graph edge and a risk keep their ids
 * across recomputes and releases, so the function that makes them may change only in how fast
 * it is. These pin ids made before its last change, and compare it with RFC 9562's version-5
 * definition written out with a Hash object.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import fc from 'fast-check';
import { versionFiveText } from '../../../test/support/version5-reference.js';
import { identityId, rbacObjectId, stableId } from './ids.js';

const NAMESPACE = Buffer.from('5f0c3c7e8a2b4d6e9f1a2b3c4d5e6f70', 'hex');

/** SHA-1 of the namespace and the name's UTF-8, version and variant bits set, as RFC 9562 writes it. */
function versionFive(name: string): string {
  return versionFiveText(createHash('sha1').update(NAMESPACE).update(name, 'utf8').digest());
}

test('ids stored by earlier releases come out the same', () => {
  assert.equal(identityId('c1', 'ServiceAccount', 'payments', 'api'), '71f9fc19-d666-5725-ab0e-37095a1d55df');
  assert.equal(rbacObjectId('c1', 'ClusterRole', '', 'admin'), 'd9c96b40-1438-5a78-9124-0a8fdcfd2ca0');
  assert.equal(stableId('a:b', 'c'), '5f60f76d-690c-5b5a-80c2-45f1e6f5aa0d');
  assert.equal(stableId('a', 'b:c'), '6e23c5e1-e324-50ef-8ef0-24aa219e69fd');
  assert.equal(
    stableId('edge', 'naïve-ß-名前-🙂', 'subject_of', 'x'),
    'e60d3475-d165-5aaa-814c-2efffb701bc7',
  );
  // longer than the buffer the names are first written into
  assert.equal(stableId('risk', 'f'.repeat(3000)), '9034e8cc-3174-5f52-af35-964e1a9235e1');
  assert.equal(stableId(), '30ffa718-12f3-5597-aaef-7b2fd23d8ef2');
});

test('every id is the version-5 UUID of its parts as JSON, whatever their length or characters', () => {
  fc.assert(
    fc.property(
      fc.array(fc.oneof(fc.string({ unit: 'binary' }), fc.string({ unit: 'binary', maxLength: 3000 })), {
        maxLength: 5,
      }),
      (parts) => {
        assert.equal(stableId(...parts), versionFive(JSON.stringify(parts)));
      },
    ),
    { numRuns: 500 },
  );
  // A long name grows the buffer; the shorter ones after it still hash only their own bytes.
  const long = 'ü'.repeat(5000);
  assert.equal(stableId(long), versionFive(JSON.stringify([long])));
  assert.equal(stableId('x'), versionFive(JSON.stringify(['x'])));
});
