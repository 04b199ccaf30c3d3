import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createSecretBox } from './secret-box.js';

const box = createSecretBox('a-server-secret-of-at-least-32-characters');

test('sealed secrets open only with the same key and context, and are not readable', () => {
  const sealed = box.seal({ signing_secret: 'whsec-visible-marker' }, 'integration:t/1');
  assert.ok(!sealed.toString('latin1').includes('whsec-visible-marker'));
  assert.deepEqual(box.open(sealed, 'integration:t/1'), { signing_secret: 'whsec-visible-marker' });
  // Each seal has its own IV: sealing twice gives two different blobs.
  assert.notDeepEqual(box.seal({ a: 'b' }, 'c'), box.seal({ a: 'b' }, 'c'));
  assert.throws(() => box.open(sealed, 'integration:t/2'), 'another row');
  assert.throws(() =>
    createSecretBox('another-server-secret-of-32-characters!!').open(sealed, 'integration:t/1'),
  );
  const tampered = Buffer.from(sealed);
  tampered[tampered.length - 1] = (tampered[tampered.length - 1] ?? 0) ^ 1;
  assert.throws(() => box.open(tampered, 'integration:t/1'), 'tampered');
});
