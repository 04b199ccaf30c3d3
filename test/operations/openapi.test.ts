import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startTestApp, type TestApp } from '../support/harness.js';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

test('/openapi.json is an OpenAPI 3.1 document of API version 0.0.21', async () => {
  const res = await t.request({ method: 'GET', url: '/openapi.json' });
  assert.equal(res.status, 200);
  assert.equal(res.body.openapi, '3.1.0');
  assert.equal(res.body.info.version, '0.0.21');
});

test('every operation documents its success status and the error statuses it can answer', async () => {
  const { paths } = (await t.request({ method: 'GET', url: '/openapi.json' })).body as {
    paths: Record<string, Record<string, { responses: Record<string, unknown>; security?: unknown[] }>>;
  };
  const missing: string[] = [];
  for (const [path, operations] of Object.entries(paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      const statuses = Object.keys(operation.responses);
      if (!statuses.some((status) => status.startsWith('2'))) missing.push(`${method} ${path}: no 2xx`);
      const isPublic = Array.isArray(operation.security) && operation.security.length === 0;
      const required = isPublic ? [] : ['400', '401', '403', '404', '429', '500', '503'];
      for (const status of required) {
        if (!statuses.includes(status)) missing.push(`${method} ${path}: ${status}`);
      }
    }
  }
  assert.deepEqual(missing, []);
});

test('/docs renders the document without a session and under a Content-Security-Policy', async () => {
  const res = await t.request({ method: 'GET', url: '/docs' });
  assert.equal(res.status, 200);
  assert.match(String(res.headers['content-type']), /text\/html/);
  assert.ok(res.headers['content-security-policy']);
});
