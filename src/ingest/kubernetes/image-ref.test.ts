import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { containerImage, parseImageReference } from './image-ref.js';

const D = `sha256:${'ab'.repeat(32)}`;
const D2 = `sha256:${'cd'.repeat(32)}`;

describe('parseImageReference', () => {
  const cases: [string, string, string, string, string][] = [
    ['nginx', 'docker.io/library/nginx', 'nginx', '', ''],
    ['nginx:1.27', 'docker.io/library/nginx', 'nginx', '1.27', ''],
    ['library/nginx:1.27', 'docker.io/library/nginx', 'nginx', '1.27', ''],
    ['docker.io/nginx', 'docker.io/library/nginx', 'nginx', '', ''],
    ['index.docker.io/library/redis:7', 'docker.io/library/redis', 'redis', '7', ''],
    ['acme/frontend:latest', 'docker.io/acme/frontend', 'frontend', 'latest', ''],
    ['registry.local:5000/team/api:1.2', 'registry.local:5000/team/api', 'api', '1.2', ''],
    ['registry.local:5000/team/api', 'registry.local:5000/team/api', 'api', '', ''],
    [`registry.local:5000/team/api:1.2@${D}`, 'registry.local:5000/team/api', 'api', '1.2', D],
    [`ghcr.io/acme/sidecar@${D}`, 'ghcr.io/acme/sidecar', 'sidecar', '', D],
    ['localhost/tool', 'localhost/tool', 'tool', '', ''],
    ['localhost:5000/tool:dev', 'localhost:5000/tool', 'tool', 'dev', ''],
    [
      'quay.io/prometheus/node-exporter:v1.8.2',
      'quay.io/prometheus/node-exporter',
      'node-exporter',
      'v1.8.2',
      '',
    ],
    [`docker-pullable://nginx@${D}`, 'docker.io/library/nginx', 'nginx', '', D],
    [`docker://${D}`, '', '', '', D],
    [D, '', '', '', D],
    [`nginx@${D.toUpperCase().replace('SHA256', 'sha256')}`, 'docker.io/library/nginx', 'nginx', '', D],
  ];
  for (const [reference, repo, name, tag, digest] of cases) {
    test(reference, () => {
      assert.deepEqual(parseImageReference(reference), { repo, name, tag, digest });
    });
  }

  test('what is composed from a registry, a path, a tag and a digest parses back into them', () => {
    const component = fc.stringMatching(/^[a-z0-9]{1,8}$/);
    const host = fc.tuple(
      fc.stringMatching(/^[a-z0-9]{1,8}\.[a-z]{2,4}$/),
      fc.option(fc.integer({ min: 1, max: 65535 })),
    );
    const tag = fc.stringMatching(/^[A-Za-z0-9_][A-Za-z0-9_.-]{0,15}$/);
    const digest = fc.stringMatching(/^[a-f0-9]{64}$/).map((hex) => `sha256:${hex}`);
    fc.assert(
      fc.property(
        host,
        fc.array(component, { minLength: 1, maxLength: 3 }),
        fc.option(tag),
        fc.option(digest),
        (h, path, t, d) => {
          const registry = h[1] === null ? h[0] : `${h[0]}:${h[1]}`;
          const reference = `${registry}/${path.join('/')}${t === null ? '' : `:${t}`}${d === null ? '' : `@${d}`}`;
          assert.deepEqual(parseImageReference(reference), {
            repo: `${registry}/${path.join('/')}`,
            name: path[path.length - 1],
            tag: t ?? '',
            digest: d ?? '',
          });
        },
      ),
    );
  });
});

describe('containerImage', () => {
  test('repository and tag from the spec image, digest from the status imageID', () => {
    assert.deepEqual(
      containerImage('nginx:1.27', 'docker.io/library/nginx:1.27', `docker.io/library/nginx@${D}`),
      {
        repo: 'docker.io/library/nginx',
        name: 'nginx',
        tag: '1.27',
        digest: D,
      },
    );
  });

  test('a digest pinned in the spec wins over the imageID', () => {
    assert.equal(containerImage(`nginx@${D}`, '', `docker-pullable://nginx@${D2}`).digest, D);
  });

  test('a runtime that reports only the local image id still gives a digest', () => {
    assert.equal(containerImage('busybox', 'busybox:latest', `docker://${D2}`).digest, D2);
  });

  test('without a spec image the status image names the repository; nothing known gives empty fields', () => {
    assert.equal(containerImage('', 'quay.io/a/b:1', '').repo, 'quay.io/a/b');
    assert.deepEqual(containerImage('', '', ''), { repo: '', name: '', tag: '', digest: '' });
  });

  test('a reference is parsed once: repeated texts share one frozen result', () => {
    const first = parseImageReference(`registry.local:5000/team/api:1.2@${D}`);
    assert.equal(parseImageReference(`registry.local:5000/team/api:1.2@${D}`), first);
    assert.ok(Object.isFrozen(first));
    assert.throws(() => {
      (first as { tag: string }).tag = 'changed';
    }, TypeError);
    assert.equal(parseImageReference(`registry.local:5000/team/api:1.2@${D}`).tag, '1.2');
  });
});
