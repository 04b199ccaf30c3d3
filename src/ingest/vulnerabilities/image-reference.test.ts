import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { digestOf, isDigest, parseImageReference } from './image-reference.js';
import { parsePurl, purlPackageName } from './purl.js';

const SHA = `sha256:${'ab'.repeat(32)}`;

describe('parseImageReference', () => {
  test('Docker Hub official images get the docker.io registry and the library/ namespace', () => {
    assert.deepEqual(parseImageReference('nginx:1.25.3'), {
      name: 'nginx',
      registry: 'docker.io',
      repository: 'docker.io/library/nginx',
      tag: '1.25.3',
      digest: null,
    });
    assert.equal(parseImageReference('bitnami/redis')?.repository, 'docker.io/bitnami/redis');
    assert.equal(
      parseImageReference('index.docker.io/library/redis:7')?.repository,
      'docker.io/library/redis',
    );
  });

  test('a registry with a port is not mistaken for a tag', () => {
    assert.deepEqual(parseImageReference('registry.example.com:5000/shop/api:2.3.1'), {
      name: 'registry.example.com:5000/shop/api',
      registry: 'registry.example.com:5000',
      repository: 'registry.example.com:5000/shop/api',
      tag: '2.3.1',
      digest: null,
    });
    assert.deepEqual(parseImageReference('localhost:5000/app'), {
      name: 'localhost:5000/app',
      registry: 'localhost:5000',
      repository: 'localhost:5000/app',
      tag: null,
      digest: null,
    });
  });

  test('tag and digest together', () => {
    const parsed = parseImageReference(`ghcr.io/org/tool:v1@${SHA}`);
    assert.equal(parsed?.tag, 'v1');
    assert.equal(parsed?.digest, SHA);
    assert.equal(parsed?.repository, 'ghcr.io/org/tool');
  });

  test('malformed references are null', () => {
    for (const bad of ['', 'Nginx:1', 'nginx:', 'nginx@sha256:1234', 'a//b', 'nginx:bad tag', '-x/y']) {
      assert.equal(parseImageReference(bad), null, bad);
    }
  });
});

describe('digests', () => {
  test('sha256 digests need 64 lowercase hex digits', () => {
    assert.ok(isDigest(SHA));
    assert.ok(!isDigest(SHA.toUpperCase()));
    assert.ok(!isDigest('sha256:abc'));
    assert.ok(!isDigest(`sha256:${'g'.repeat(64)}`));
    assert.equal(digestOf(`nginx@${SHA}`), SHA);
    assert.equal(digestOf(SHA), SHA);
    assert.equal(digestOf('nginx:1.25'), null);
  });
});

describe('parsePurl', () => {
  test('type, namespace, name, version and qualifiers, percent-decoded', () => {
    assert.deepEqual(parsePurl('pkg:deb/debian/libc6@2.36-9%2Bdeb12u3?arch=amd64&distro=debian-12.4'), {
      type: 'deb',
      namespace: 'debian',
      name: 'libc6',
      version: '2.36-9+deb12u3',
      qualifiers: { arch: 'amd64', distro: 'debian-12.4' },
    });
    assert.equal(parsePurl('pkg:npm/%40babel/core@7.24.0')?.namespace, '@babel');
    assert.equal(
      parsePurl('pkg:golang/github.com/opencontainers/runc@v1.1.5')?.namespace,
      'github.com/opencontainers',
    );
    assert.equal(
      parsePurl(
        `pkg:oci/postgres@${encodeURIComponent(SHA)}?repository_url=index.docker.io%2Flibrary%2Fpostgres`,
      )?.version,
      SHA,
    );
  });

  test('package names as scanners write them', () => {
    const name = (purl: string) => purlPackageName(parsePurl(purl)!);
    assert.equal(name('pkg:maven/org.yaml/snakeyaml@1.30'), 'org.yaml:snakeyaml');
    assert.equal(name('pkg:npm/%40babel/core@7.24.0'), '@babel/core');
    assert.equal(name('pkg:golang/github.com/opencontainers/runc@v1.1.5'), 'github.com/opencontainers/runc');
    assert.equal(name('pkg:deb/debian/libc6@2.36-9'), 'libc6');
    assert.equal(name('pkg:pypi/requests@2.31.0'), 'requests');
  });

  test('not a purl', () => {
    for (const bad of ['deb/debian/libc6@1', 'pkg:', 'pkg:/x@1', 'pkg:deb', 'pkg:deb/x@%zz'])
      assert.equal(parsePurl(bad), null, bad);
  });
});
