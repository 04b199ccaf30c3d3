import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type OwnerNode, resolveTopOwner } from './owners.js';
import { isNewerVersion } from './versions.js';

const pod = { uid: 'p', id: 'p_1', kind: 'Pod', name: 'web-abc-x', namespace: 'shop', resourceVersion: '1' };
const node = (uid: string, kind: string, owner: OwnerNode['owner'] = null): OwnerNode => ({
  uid,
  id: `${uid}_9`,
  kind,
  name: `${kind.toLowerCase()}-${uid}`,
  namespace: 'shop',
  resourceVersion: '9',
  owner,
});

describe('resolveTopOwner', () => {
  test('a pod without a controller is its own owner', () => {
    assert.deepEqual(resolveTopOwner(pod, null, new Map()), pod);
  });

  test('Pod -> ReplicaSet -> Deployment resolves to the Deployment', () => {
    const nodes = new Map([
      ['rs', node('rs', 'ReplicaSet', { uid: 'd', kind: 'Deployment', name: 'deployment-d' })],
      ['d', node('d', 'Deployment')],
    ]);
    const owner = resolveTopOwner(pod, { uid: 'rs', kind: 'ReplicaSet', name: 'replicaset-rs' }, nodes);
    assert.deepEqual(owner, {
      uid: 'd',
      id: 'd_9',
      kind: 'Deployment',
      name: 'deployment-d',
      namespace: 'shop',
      resourceVersion: '9',
    });
  });

  test('a link not ingested yet ends the walk with what the reference names', () => {
    const nodes = new Map([['rs', node('rs', 'ReplicaSet', { uid: 'd', kind: 'Deployment', name: 'web' })]]);
    assert.deepEqual(resolveTopOwner(pod, { uid: 'rs', kind: 'ReplicaSet', name: 'web-abc' }, nodes), {
      uid: 'd',
      id: '',
      kind: 'Deployment',
      name: 'web',
      namespace: 'shop',
      resourceVersion: '',
    });
    assert.equal(resolveTopOwner(pod, { uid: 'n', kind: 'Node', name: 'node-1' }, new Map()).namespace, '');
  });

  test('an ownership cycle ends instead of looping', () => {
    const nodes = new Map([
      ['a', node('a', 'Thing', { uid: 'b', kind: 'Thing', name: 'b' })],
      ['b', node('b', 'Thing', { uid: 'a', kind: 'Thing', name: 'a' })],
      ['c', node('c', 'Thing', { uid: 'c', kind: 'Thing', name: 'c' })],
    ]);
    assert.ok(['a', 'b'].includes(resolveTopOwner(pod, { uid: 'a', kind: 'Thing', name: 'a' }, nodes).uid));
    assert.equal(resolveTopOwner(pod, { uid: 'c', kind: 'Thing', name: 'c' }, nodes).uid, 'c');
  });
});

describe('isNewerVersion', () => {
  test('integers compare as numbers, however long', () => {
    assert.equal(isNewerVersion('1000', '999'), true);
    assert.equal(isNewerVersion('999', '1000'), false);
    assert.equal(isNewerVersion('42', '42'), false);
    assert.equal(isNewerVersion('123456789012345678901234567890', '123456789012345678901234567889'), true);
  });

  test('opaque versions: the later arrival wins unless it is the same', () => {
    assert.equal(isNewerVersion('abc', '999'), true);
    assert.equal(isNewerVersion('abc', 'abc'), false);
  });
});
