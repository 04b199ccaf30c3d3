import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { readKubernetesPush } from './read-push.js';

const pod = (name: string) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, uid: `u-${name}`, resourceVersion: '1' },
});

describe('readKubernetesPush', () => {
  test('a List: every item with its position', () => {
    const push = readKubernetesPush(
      JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [pod('a'), pod('b')] }),
    );
    assert.equal(push.format, 'list');
    assert.equal(push.received, 2);
    assert.deepEqual(
      push.items.map((item) => [item.position, item.event]),
      [
        ['items[0]', 'ADDED'],
        ['items[1]', 'ADDED'],
      ],
    );
  });

  test('a typed list (PodList) lends kind and apiVersion to its items', () => {
    const { metadata } = pod('a');
    const push = readKubernetesPush(
      JSON.stringify({ apiVersion: 'v1', kind: 'PodList', items: [{ metadata }] }),
    );
    assert.deepEqual(push.items[0]?.object, { kind: 'Pod', apiVersion: 'v1', metadata });
  });

  test('a single object, and a JSON array of objects', () => {
    const single = readKubernetesPush(JSON.stringify(pod('a')));
    assert.equal(single.format, 'object');
    assert.equal(single.items[0]?.position, 'body');
    const array = readKubernetesPush(JSON.stringify([pod('a'), { type: 'DELETED', object: pod('b') }]));
    assert.equal(array.format, 'list');
    assert.deepEqual(
      array.items.map((item) => [item.position, item.event]),
      [
        ['[0]', 'ADDED'],
        ['[1]', 'DELETED'],
      ],
    );
  });

  test('watch events: NDJSON lines, bookmarks and errors ignored but counted', () => {
    const lines = [
      { type: 'ADDED', object: pod('a') },
      { type: 'BOOKMARK', object: { kind: 'Pod', apiVersion: 'v1', metadata: { resourceVersion: '9' } } },
      { type: 'MODIFIED', object: pod('a') },
      { type: 'ERROR', object: { kind: 'Status', code: 410 } },
      { type: 'DELETED', object: pod('b') },
    ];
    const push = readKubernetesPush(lines.map((line) => JSON.stringify(line)).join('\n'));
    assert.equal(push.format, 'stream');
    assert.equal(push.received, 5);
    assert.equal(push.ignored, 2);
    assert.deepEqual(
      push.items.map((item) => [item.position, item.event]),
      [
        ['line 1', 'ADDED'],
        ['line 3', 'MODIFIED'],
        ['line 5', 'DELETED'],
      ],
    );
  });

  test('a single watch event is one item', () => {
    const push = readKubernetesPush(JSON.stringify({ type: 'DELETED', object: pod('a') }));
    assert.deepEqual(
      push.items.map((item) => [item.position, item.event]),
      [['body', 'DELETED']],
    );
  });

  test('a Secret keeps its `type` field: it is an object, not an event', () => {
    const secret = { apiVersion: 'v1', kind: 'Secret', type: 'Opaque', metadata: { name: 's' } };
    assert.equal(readKubernetesPush(JSON.stringify(secret)).items[0]?.event, 'ADDED');
  });

  test('items that are no objects and unknown event types are problems, with their position', () => {
    const push = readKubernetesPush(
      `${JSON.stringify({ kind: 'List', items: [pod('a'), 'text', null] })}\n${JSON.stringify({ type: 'UPSERT', object: pod('b') })}`,
    );
    assert.deepEqual(
      push.problems.map((p) => [p.field, p.code]),
      [
        ['line 1 items[1]', 'invalid_type'],
        ['line 1 items[2]', 'invalid_type'],
        ['line 2', 'invalid_value'],
      ],
    );
    assert.equal(push.items.length, 1);
  });
});
