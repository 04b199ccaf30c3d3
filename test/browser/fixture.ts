/**
 * What the console's browser tests run against: the real app on 127.0.0.1 (a free port), a fresh
 * tenant with the demo data pushed through the ingestion endpoints the server has (the sample
 * cluster and its extra RBAC, the sample scans with the sample EPSS/KEV feeds, the runtime sample:
 * what `npm start` gives the demo tenant), a second account and a viewer to change roles on. The
 * console bundle is built first if absent.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { pushSampleRuntime } from '../../src/modules/runtime/demo-data.js';
import { importSampleFeeds, pushSampleScans } from '../../src/modules/vulnerabilities/demo-data.js';
import { createCluster, push, pushSampleCluster } from '../ingest/sample.js';
import {
  createTenant,
  startTestApp,
  type TestApp,
  type TestTenant,
  type TestUser,
} from '../support/harness.js';

const REPO = new URL('../../', import.meta.url);

export function ensureConsoleBuilt(): void {
  if (existsSync(new URL('dist/console/index.html', REPO))) return;
  const built = spawnSync('npx', ['vite', 'build', '--config', 'console/vite.config.ts'], {
    cwd: REPO,
    stdio: 'inherit',
  });
  if (built.status !== 0) throw new Error('the console bundle did not build');
}

export interface ConsoleFixture {
  t: TestApp;
  tenant: TestTenant;
  viewer: TestUser;
  cluster: { id: string; name: string } | null;
  baseUrl: string;
  /** GET through the API as the tenant admin (the ground truth the console must show) */
  // biome-ignore lint/suspicious/noExplicitAny: API bodies of every shape
  api(url: string): Promise<{ status: number; body: any }>;
  offers(operation: string): boolean;
}

export async function startConsoleFixture(): Promise<ConsoleFixture> {
  ensureConsoleBuilt();
  const t = await startTestApp();
  const tenant = await createTenant(t);
  const document = (await t.request({ method: 'GET', url: '/openapi.json' })).body;
  const operations = new Set<string>();
  for (const [path, methods] of Object.entries(document.paths as Record<string, object>)) {
    for (const method of Object.keys(methods)) operations.add(`${method.toUpperCase()} ${path}`);
  }
  const offers = (operation: string) => operations.has(operation);

  let cluster: ConsoleFixture['cluster'] = null;
  if (offers('POST /accounts/{account_id}/clusters')) {
    cluster = await createCluster(t, tenant.adminToken, tenant.accountId, 'shop-prod');
    const demo = { token: tenant.adminToken, accountId: tenant.accountId, clusterId: cluster.id };
    if (offers('POST /accounts/{account_id}/clusters/{cluster_id}/ingest/kubernetes')) {
      await pushSampleCluster(t, tenant.adminToken, tenant.accountId, cluster.id);
      const extra = readFileSync(new URL('sample/cluster/rbac-extra.json', REPO), 'utf8');
      const pushed = await push(t, tenant.adminToken, tenant.accountId, cluster.id, extra);
      if (pushed.status !== 200) throw new Error(`rbac-extra.json: ${pushed.text}`);
    }
    if (offers('POST /accounts/{account_id}/clusters/{cluster_id}/ingest/vulnerabilities')) {
      await pushSampleScans(t.app, demo);
      await importSampleFeeds(t.db);
    }
    if (offers('POST /accounts/{account_id}/clusters/{cluster_id}/ingest/runtime')) {
      await pushSampleRuntime(t.app, demo);
    }
  }
  await tenant.addAccount('staging');
  const viewer = await tenant.addUser([{ level: 'account', role: 'viewer' }], { name: 'vera-viewer' });
  const baseUrl = await t.app.listen({ host: '127.0.0.1', port: 0 });

  return {
    t,
    tenant,
    viewer,
    cluster,
    baseUrl,
    offers,
    api: async (url) => {
      const res = await t.request({ method: 'GET', url, token: tenant.adminToken });
      return { status: res.status, body: res.body };
    },
  };
}
