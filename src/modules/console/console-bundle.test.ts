import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import type { Api } from '../../http/api.js';
import { registerErrorHandling } from '../../http/error-handler.js';
import { consoleBundleRoutes } from './bundle-routes.js';
import { CONSOLE_CSP } from './security-headers.js';

const INDEX_HTML =
  '<!doctype html><title>Posture</title><script type="module" src="/console/assets/app-1a2b.js"></script>';

async function appServing(root: string): Promise<FastifyInstance> {
  const app = Fastify({ logger: false });
  registerErrorHandling(app);
  await app.register(async (scope) => consoleBundleRoutes(scope as unknown as Api, { root }));
  await app.ready();
  return app;
}

describe('a built console bundle', () => {
  let root: string;
  let app: FastifyInstance;
  before(async () => {
    root = mkdtempSync(join(tmpdir(), 'posture-console-'));
    mkdirSync(join(root, 'assets'));
    writeFileSync(join(root, 'index.html'), INDEX_HTML);
    writeFileSync(join(root, 'assets', 'app-1a2b.js'), 'console.log("posture")');
    writeFileSync(join(root, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
    writeFileSync(join(root, '..', 'outside-the-bundle.txt'), 'secret');
    app = await appServing(root);
  });
  after(async () => {
    await app.close();
    rmSync(root, { recursive: true, force: true });
    rmSync(join(root, '..', 'outside-the-bundle.txt'), { force: true });
  });

  test('/console and any view path get index.html under the strict policy, revalidated every time', async () => {
    for (const url of [
      '/console',
      '/console/',
      '/console/accounts/abc/clusters?q=web&page=2',
      '/console/sign-in',
    ]) {
      const res = await app.inject({ url });
      assert.equal(res.statusCode, 200, url);
      assert.match(String(res.headers['content-type']), /^text\/html/);
      assert.equal(res.body, INDEX_HTML);
      assert.equal(res.headers['content-security-policy'], CONSOLE_CSP);
      assert.equal(res.headers['cache-control'], 'no-cache');
      assert.equal(res.headers['x-frame-options'], 'DENY');
      assert.equal(res.headers['x-content-type-options'], 'nosniff');
    }
  });

  test('the policy allows this origin only: no inline code, no third party, no framing', () => {
    const directives = new Map(
      CONSOLE_CSP.split(';').map((part) => {
        const [name, ...values] = part.trim().split(/\s+/);
        return [name, values] as const;
      }),
    );
    assert.deepEqual(directives.get('default-src'), ["'self'"]);
    assert.deepEqual(directives.get('script-src'), ["'self'"]);
    assert.deepEqual(directives.get('style-src'), ["'self'"]);
    assert.deepEqual(directives.get('connect-src'), ["'self'"]);
    assert.deepEqual(directives.get('frame-ancestors'), ["'none'"]);
    assert.ok(!CONSOLE_CSP.includes('unsafe'), 'no unsafe-inline or unsafe-eval');
    assert.ok(!/https?:/.test(CONSOLE_CSP), 'no other host');
  });

  test('hashed assets are served with a year of immutable caching; other files for an hour', async () => {
    const asset = await app.inject({ url: '/console/assets/app-1a2b.js' });
    assert.equal(asset.statusCode, 200);
    assert.match(String(asset.headers['content-type']), /javascript/);
    assert.equal(asset.body, 'console.log("posture")');
    assert.match(String(asset.headers['cache-control']), /max-age=31536000.*immutable/);
    assert.equal(asset.headers['content-security-policy'], CONSOLE_CSP);

    const icon = await app.inject({ url: '/console/favicon.svg' });
    assert.equal(icon.statusCode, 200);
    assert.match(String(icon.headers['content-type']), /image\/svg\+xml/);
    assert.match(String(icon.headers['cache-control']), /max-age=3600/);
  });

  test('a missing asset is a 404 (never index.html, which the browser would run as a script)', async () => {
    const res = await app.inject({ url: '/console/assets/gone-9f9f.js' });
    assert.equal(res.statusCode, 404);
    assert.equal(res.json().code, 'not_found');
  });

  test('nothing outside the bundle is reachable', async () => {
    for (const url of [
      '/console/../outside-the-bundle.txt',
      '/console/%2e%2e/outside-the-bundle.txt',
      '/console/assets/..%2f..%2foutside-the-bundle.txt',
    ]) {
      const res = await app.inject({ url });
      assert.ok(!res.body.includes('secret'), url);
    }
  });
});

test('without a built bundle, /console says how to build it (503), and assets are 404', async () => {
  const app = await appServing(join(tmpdir(), 'posture-console-does-not-exist'));
  try {
    const page = await app.inject({ url: '/console/accounts/x/overview' });
    assert.equal(page.statusCode, 503);
    assert.match(page.json().message, /npm run build/);
    assert.equal(page.headers['content-security-policy'], CONSOLE_CSP);
    const asset = await app.inject({ url: '/console/assets/app.js' });
    assert.equal(asset.statusCode, 404);
  } finally {
    await app.close();
  }
});
