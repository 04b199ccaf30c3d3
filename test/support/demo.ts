/**
 * The demo tenant, as a fresh store's first start makes it (src/demo/demo-tenant.ts: the sample
 * cluster, scans, feeds and runtime stream pushed through the ingestion API), logged in: for
 * tests that need realistic data of every kind.
 *
 * @example
 *   const demo = await startDemoTenant(t);
 *   await t.request({ method: 'GET', url: `/accounts/${demo.accountId}/resources`, token: demo.token });
 */
import assert from 'node:assert/strict';
import { ensureDemoTenant } from '../../src/demo/demo-tenant.js';
import { login, TEST_PEPPER, type TestApp } from './harness.js';

export interface DemoTenant {
  accountId: string;
  token: string;
}

export async function startDemoTenant(t: TestApp): Promise<DemoTenant> {
  let printed = '';
  await ensureDemoTenant({
    db: t.db,
    pepper: TEST_PEPPER,
    baseUrl: 'http://demo',
    app: t.app,
    print: (text: string) => (printed += text),
  });
  // The key is only ever shown in what the first start prints.
  const keyId = /access_key_id: (\S+)/.exec(printed)?.[1];
  const secret = /secret_key: +(\S+)/.exec(printed)?.[1];
  const accountId = /account_id: +(\S+)/.exec(printed)?.[1];
  assert.ok(keyId && secret && accountId, printed);
  return { accountId, token: await login(t, keyId, secret) };
}
