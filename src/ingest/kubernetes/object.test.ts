import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ValidationDetail } from '../../http/errors.js';
import { isKubeObject, type KubeObject, toKubeObject } from './object.js';

const D = `sha256:${'ab'.repeat(32)}`;
const D2 = `sha256:${'cd'.repeat(32)}`;

function pod(overrides: Record<string, unknown> = {}) {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: 'web-1',
      namespace: 'shop',
      uid: '0b7c6c1e-1111-4c4c-8888-000000000001',
      resourceVersion: '42',
      creationTimestamp: '2026-10-01T08:00:00Z',
      ownerReferences: [
        { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-abc', uid: 'rs-uid', controller: true },
        { apiVersion: 'v1', kind: 'ConfigMap', name: 'other', uid: 'cm-uid' },
      ],
    },
    spec: { containers: [{ name: 'nginx', image: `nginx@${D}` }] },
    status: { containerStatuses: [{ name: 'nginx', imageID: `docker.io/library/nginx@${D2}` }] },
    ...overrides,
  };
}

const accept = (object: unknown): KubeObject => {
  const result = toKubeObject({ position: 'items[3]', event: 'ADDED', object });
  assert.ok(isKubeObject(result), JSON.stringify(result));
  return result;
};
const refuse = (object: unknown): ValidationDetail => {
  const result = toKubeObject({ position: 'items[3]', event: 'ADDED', object });
  assert.ok(!isKubeObject(result), 'expected a validation detail');
  return result;
};

describe('toKubeObject', () => {
  test('a pod: identity, controller owner, creation time, entity type and image digests', () => {
    const object = accept(pod());
    assert.equal(object.id, '0b7c6c1e-1111-4c4c-8888-000000000001_42');
    assert.equal(object.namespace, 'shop');
    assert.deepEqual(object.owner, { uid: 'rs-uid', kind: 'ReplicaSet', name: 'web-abc' });
    assert.equal(object.createdAt, '2026-10-01T08:00:00.000Z');
    assert.equal(object.entityType, 'workload');
    assert.deepEqual(object.imageDigests, [D, D2]);
    assert.deepEqual(JSON.parse(object.rawText), pod());
  });

  test('cluster-scoped objects have an empty namespace; unknown kinds are entity type other', () => {
    const role = accept({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'x', uid: 'u1', resourceVersion: '1' },
    });
    assert.equal(role.namespace, '');
    assert.equal(role.entityType, 'rbac');
    assert.equal(role.owner, null);
    const custom = accept({
      apiVersion: 'example.com/v1alpha1',
      kind: 'Widget',
      metadata: { name: 'w', uid: 'u2', resourceVersion: 'x7' },
    });
    assert.equal(custom.entityType, 'other');
  });

  test('a CronJob reports the digests pinned in its job template', () => {
    const cronJob = accept({
      apiVersion: 'batch/v1',
      kind: 'CronJob',
      metadata: { name: 'c', namespace: 'n', uid: 'u3', resourceVersion: '3' },
      spec: {
        jobTemplate: { spec: { template: { spec: { containers: [{ name: 'a', image: `a@${D}` }] } } } },
      },
    });
    assert.deepEqual(cronJob.imageDigests, [D]);
  });

  test('a Secret is stored without its values', () => {
    const secret = accept({
      apiVersion: 'v1',
      kind: 'Secret',
      type: 'Opaque',
      metadata: {
        name: 's',
        namespace: 'n',
        uid: 'u4',
        resourceVersion: '4',
        annotations: {
          'kubectl.kubernetes.io/last-applied-configuration': '{"data":{"p":"c2VjcmV0"}}',
          keep: 'me',
        },
      },
      data: { p: 'c2VjcmV0' },
      stringData: { q: 'secret' },
    });
    assert.ok(!secret.rawText.includes('c2VjcmV0') && !secret.rawText.includes('"secret"'));
    assert.deepEqual(JSON.parse(secret.rawText).metadata.annotations, { keep: 'me' });
    assert.equal(JSON.parse(secret.rawText).type, 'Opaque');
  });

  const invalid: [string, unknown, string, ValidationDetail['code']][] = [
    ['no kind', { ...pod(), kind: undefined }, 'kind is required', 'required'],
    ['a nested List', { ...pod(), kind: 'PodList' }, 'cannot be nested', 'invalid_value'],
    ['a bad apiVersion', { ...pod(), apiVersion: 'not a version' }, 'apiVersion', 'invalid_format'],
    ['no metadata', { ...pod(), metadata: undefined }, 'metadata is required', 'required'],
    [
      'no uid',
      { ...pod(), metadata: { ...pod().metadata, uid: undefined } },
      'metadata.uid is required',
      'required',
    ],
    [
      'a uid with _',
      { ...pod(), metadata: { ...pod().metadata, uid: 'a_b' } },
      'metadata.uid',
      'invalid_format',
    ],
    [
      'no resourceVersion',
      { ...pod(), metadata: { ...pod().metadata, resourceVersion: '' } },
      'resourceVersion is required',
      'required',
    ],
    [
      'a numeric name',
      { ...pod(), metadata: { ...pod().metadata, name: 7 } },
      'metadata.name must be a string',
      'invalid_type',
    ],
    [
      'a bad creation time',
      { ...pod(), metadata: { ...pod().metadata, creationTimestamp: '2026-02-30T00:00:00Z' } },
      'creationTimestamp',
      'invalid_format',
    ],
    [
      'relative creation time',
      { ...pod(), metadata: { ...pod().metadata, creationTimestamp: 'now' } },
      'creationTimestamp',
      'invalid_format',
    ],
    [
      'ownerReferences not a list',
      { ...pod(), metadata: { ...pod().metadata, ownerReferences: {} } },
      'ownerReferences',
      'invalid_type',
    ],
    [
      'an owner without uid',
      { ...pod(), metadata: { ...pod().metadata, ownerReferences: [{ kind: 'X', name: 'x' }] } },
      'ownerReferences[0].uid',
      'required',
    ],
    ['a pod without containers', { ...pod(), spec: {} }, 'spec.containers', 'invalid_type'],
    [
      'a container without name',
      { ...pod(), spec: { containers: [{ image: 'x' }] } },
      'spec.containers[0].name',
      'required',
    ],
    [
      'statuses not a list',
      { ...pod(), status: { containerStatuses: 'x' } },
      'status.containerStatuses',
      'invalid_type',
    ],
    [
      'a NUL character',
      { ...pod(), metadata: { ...pod().metadata, labels: { a: 'x\u0000y' } } },
      'NUL',
      'invalid_value',
    ],
  ];
  for (const [name, object, message, code] of invalid) {
    test(`refused: ${name}, with the item's position, kind and name`, () => {
      const detail = refuse(object);
      assert.equal(detail.field, 'items[3]');
      assert.equal(detail.code, code);
      assert.equal(detail.param, 'body');
      assert.ok(detail.message.includes(message), detail.message);
      if (name !== 'no metadata' && name !== 'no kind' && name !== 'a numeric name') {
        assert.ok(
          detail.message.startsWith(`${(object as { kind: string }).kind} shop/web-1: `),
          detail.message,
        );
      }
    });
  }

  test('nesting: 200 levels are stored, 100,000 (found by the fuzz suite: a 500) are refused', () => {
    const nested = (depth: number) => JSON.parse(`${'['.repeat(depth)}1${']'.repeat(depth)}`);
    accept({ ...pod(), spec: { ...pod().spec, extra: nested(200) } });
    for (const depth of [300, 100_000]) {
      const detail = refuse({ ...pod(), spec: { ...pod().spec, extra: nested(depth) } });
      assert.equal(detail.code, 'invalid_value');
      assert.ok(detail.message.includes('nests deeper than 256 levels'), detail.message);
    }
  });

  test('a backslash followed by u0000 as plain text is storable', () => {
    accept({ ...pod(), metadata: { ...pod().metadata, labels: { a: 'x\\u0000y' } } });
  });
});
