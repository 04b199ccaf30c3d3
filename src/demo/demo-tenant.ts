/**
 * The demo tenant `npm start` creates on the first start of an empty store, so a newcomer can
 * sign in at once and find data. The data goes through the real HTTP API (in-process `inject`)
 * with the demo's own key: the sample cluster of sample/cluster/ is pushed by the Kubernetes
 * ingestion endpoint exactly as an agent would push it. Its access key is printed once, to
 * stdout, never to the logs.
 */
import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import type { Database } from '../db/database.js';
import { configureDemoTenantSettings } from '../modules/integrations/demo-data.js';
import { pushSampleRuntime } from '../modules/runtime/demo-data.js';
import { type BootstrapResult, createTenancyService } from '../modules/tenancy/service.js';
import { importSampleFeeds, pushSampleScans } from '../modules/vulnerabilities/demo-data.js';

/** Relative to this file in src/demo/ and in dist/demo/ alike. */
const SAMPLE_CLUSTER = new URL('../../sample/cluster/', import.meta.url);
const SAMPLE_CLUSTER_FILES = [
  '01-cluster.json',
  '02-workloads.json',
  '03-pods.json',
  '04-rbac.json',
  // extra RBAC of the identities engine (issue 5): a low-risk identity, so every risk level shows
  'rbac-extra.json',
  '05-watch-events.ndjson',
];

type Inject = Pick<FastifyInstance, 'inject'>;

async function call(
  app: Inject,
  request: { method: 'GET' | 'POST'; url: string; token?: string; payload: string | object },
): Promise<Record<string, unknown>> {
  const res = await app.inject({
    method: request.method,
    url: request.url,
    headers: {
      'content-type': 'application/json',
      ...(request.token ? { authorization: `Bearer ${request.token}` } : {}),
    },
    payload: request.payload,
  });
  if (res.statusCode >= 300) {
    throw new Error(`demo data: ${request.method} ${request.url} answered ${res.statusCode}: ${res.body}`);
  }
  return res.json();
}

/** A cluster named `demo`, the sample cluster pushed into it, and one pending action. */
async function populateDemoAccount(app: Inject, demo: BootstrapResult): Promise<void> {
  const { token } = (await call(app, {
    method: 'POST',
    url: '/authentication/authenticate',
    payload: { access_key_id: demo.access_key_id, secret_key: demo.secret_key },
  })) as { token: string };
  const account = `/accounts/${demo.account_id}`;
  const cluster = (await call(app, {
    method: 'POST',
    url: `${account}/clusters`,
    token,
    payload: { name: 'demo' },
  })) as { id: string };
  // Before the push: the mock webhook then records the finding groups the sample cluster opens.
  await configureDemoTenantSettings(app, { token, tenantId: demo.tenant_id, accountId: demo.account_id });
  for (const file of SAMPLE_CLUSTER_FILES) {
    await call(app, {
      method: 'POST',
      url: `${account}/clusters/${cluster.id}/ingest/kubernetes`,
      token,
      payload: readFileSync(new URL(file, SAMPLE_CLUSTER), 'utf8'),
    });
  }
  // Scans of the images the sample cluster runs (sample/scans/), after the cluster: in_use shows.
  await pushSampleScans(app, { token, accountId: demo.account_id, clusterId: cluster.id });
  // Runtime events of the demo cluster (sample/runtime/): baselines, an intrusion, HTTP observations.
  await pushSampleRuntime(app, { token, accountId: demo.account_id, clusterId: cluster.id });
  await call(app, {
    method: 'POST',
    url: `${account}/clusters/${cluster.id}/actions`,
    token,
    payload: {
      action_type: 'terminate_pod',
      target_namespace: 'payments',
      target_pod_name: 'debug-shell',
      parameters: { reason: 'privileged pod with the host filesystem mounted' },
    },
  });
}

export async function ensureDemoTenant(deps: {
  db: Database;
  pepper: string;
  baseUrl: string;
  app: Inject;
  print?: (text: string) => void;
}): Promise<void> {
  const tenancy = createTenancyService(deps);
  if (await tenancy.hasAnyTenant()) return;
  const demo = await tenancy.bootstrap({ tenant: 'demo', account: 'demo', user: 'demo-admin' });
  // EPSS and KEV first (unless a feed is loaded already), so the scans' findings see KEV at once.
  await importSampleFeeds(deps.db);
  await populateDemoAccount(deps.app, demo);
  const print = deps.print ?? ((text: string) => process.stdout.write(text));
  print(
    [
      '',
      'Posture demo tenant created, with a sample cluster named "demo". This access key is shown once; keep it:',
      `  access_key_id: ${demo.access_key_id}`,
      `  secret_key:    ${demo.secret_key}`,
      `  tenant_id:     ${demo.tenant_id}`,
      `  account_id:    ${demo.account_id}`,
      '',
      'Try:',
      `  curl -s ${deps.baseUrl}/authentication/authenticate -d '{"access_key_id":"${demo.access_key_id}","secret_key":"<secret_key>"}'`,
      '',
    ].join('\n'),
  );
}
