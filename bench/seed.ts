/**
 * Builds the benchmark's data: tenants, accounts and keys directly in the store (as `posture
 * bootstrap` does, before the server starts, since a PGlite store admits one process), then every
 * fact through the real ingestion endpoints of the running server, timing each kind of push.
 */
import type cliProgress from 'cli-progress';
import { syntheticStream } from '../src/engines/runtime/sample/bench.js';
import { openFeed } from '../src/ingest/feeds/read-feed.js';
import { createTenancyService } from '../src/modules/tenancy/service.js';
import { importFeed } from '../src/modules/vulnerabilities/feed-service.js';
import type { ApiClient } from './api-client.js';
import { epssCsv, kevJson } from './dataset/feeds.js';
import { asLists, clusterObjects, podsVersion } from './dataset/kubernetes.js';
import { scanReport } from './dataset/scans.js';
import { BENCH_SECRET, type Store, withStore } from './server-process.js';
import type { DatasetSize } from './sizes.js';

export interface Credentials {
  tenantId: string;
  accountId: string;
  neighbourAccountId: string;
  key: { id: string; secret: string };
  otherTenant: { accountId: string; key: { id: string; secret: string } };
}

/** The measured tenant (two accounts) and another tenant, created in the store. */
export function bootstrapTenants(store: Store): Promise<Credentials> {
  return withStore(store, async (db) => {
    const tenancy = createTenancyService({ db, pepper: BENCH_SECRET });
    const measured = await tenancy.bootstrap({
      tenant: 'bench-measured',
      account: 'measured',
      user: 'bench',
    });
    const neighbour = await tenancy.createAccount({ tenantId: measured.tenant_id, name: 'neighbour' });
    const other = await tenancy.bootstrap({ tenant: 'bench-other', account: 'other', user: 'bench' });
    // The feeds an operator keeps loaded, before any scan: findings and reports look them up.
    for (const feed of [epssCsv(), kevJson()]) await importFeed(db, await openFeed(Buffer.from(feed)), null);
    return {
      tenantId: measured.tenant_id,
      accountId: measured.account_id,
      neighbourAccountId: neighbour.account_id,
      key: { id: measured.access_key_id, secret: measured.secret_key },
      otherTenant: {
        accountId: other.account_id,
        key: { id: other.access_key_id, secret: other.secret_key },
      },
    };
  });
}

/** Wall time and volume of one kind of ingestion. */
export interface IngestTally {
  items: number;
  /** the pushes' wall time; for the clusters' concurrent Kubernetes pushes, the phase's */
  seconds: number;
  pushes: number;
}

export interface AccountData {
  accountId: string;
  clusters: { id: string; name: string }[];
  kubernetes: IngestTally;
  /** vulnerability findings pushed (one CVE report row each: images share no CVE) */
  vulnerabilities: IngestTally;
  runtime: IngestTally;
}

const OBJECTS_PER_PUSH = 2000;
const EVENTS_PER_PUSH = 10_000;

async function timedPushes<T>(
  tally: IngestTally,
  bodies: Iterable<{ body: string; items: number }>,
  push: (body: string) => Promise<T>,
  tick: () => void,
) {
  for (const { body, items } of bodies) {
    const started = performance.now();
    await push(body);
    tally.seconds += (performance.now() - started) / 1000;
    tally.items += items;
    tally.pushes++;
    tick();
  }
}

/** The synthetic runtime stream of `events` events as the suite pushes it: NDJSON bodies of 10,000. */
export function* runtimePushes(events: number): Generator<{ body: string; items: number }> {
  const lines = syntheticStream(events).map((event) => JSON.stringify(event));
  for (let i = 0; i < lines.length; i += EVENTS_PER_PUSH) {
    const chunk = lines.slice(i, i + EVENTS_PER_PUSH);
    yield { body: `${chunk.join('\n')}\n`, items: chunk.length };
  }
}

/** Pushes an account's whole dataset; `bar` advances once per push, `onPhase` names each kind. */
export async function populateAccount(
  client: ApiClient,
  accountId: string,
  size: DatasetSize,
  bar: cliProgress.SingleBar,
  onPhase: (kind: 'kubernetes' | 'vulnerabilities' | 'runtime') => void = () => {},
): Promise<AccountData> {
  const account = `/accounts/${accountId}`;
  const data: AccountData = {
    accountId,
    clusters: [],
    kubernetes: { items: 0, seconds: 0, pushes: 0 },
    vulnerabilities: { items: 0, seconds: 0, pushes: 0 },
    runtime: { items: 0, seconds: 0, pushes: 0 },
  };
  const tick = () => bar.increment();
  await client.send('PUT', `${account}/runtime_settings`, {
    body: JSON.stringify({
      learning_window_seconds: 3600,
      learning_window_max_events: null,
      trusted_ip_prefixes: [{ cidr: '10.96.0.0/12', name: 'services' }],
    }),
  });
  onPhase('kubernetes');
  for (let c = 0; c < size.clusters; c++) {
    data.clusters.push(
      await client.post<{ id: string; name: string }>(`${account}/clusters`, { name: `prod-${c}` }),
    );
  }
  // One agent per cluster, pushing at the same time as a fleet's agents do; each pushes its Lists
  // one after the other. The rate is the phase's: its objects over its wall time.
  const pushCluster = async (cluster: { id: string; name: string }) => {
    const ingest = `${account}/clusters/${cluster.id}/ingest/kubernetes`;
    const lists = function* () {
      const first = clusterObjects(size.cluster, size.images, cluster.name);
      for (const list of asLists(first, OBJECTS_PER_PUSH)) {
        yield { body: JSON.stringify(list), items: (list.items as unknown[]).length };
      }
      for (let version = 2; version <= size.cluster.podVersions; version++) {
        for (const list of asLists(
          podsVersion(size.cluster, size.images, cluster.name, version),
          OBJECTS_PER_PUSH,
        )) {
          yield { body: JSON.stringify(list), items: (list.items as unknown[]).length };
        }
      }
    };
    await timedPushes(data.kubernetes, lists(), (body) => client.push(ingest, body), tick);
  };
  const kubernetesStarted = performance.now();
  await Promise.all(data.clusters.map(pushCluster));
  data.kubernetes.seconds = (performance.now() - kubernetesStarted) / 1000;
  const first = data.clusters[0]!;
  const reports = function* () {
    for (let image = 0; image < size.images; image++) {
      const body = JSON.stringify(scanReport(image, size.packagesPerImage, size.cvesPerPackage, 0));
      yield { body, items: size.packagesPerImage * size.cvesPerPackage };
    }
  };
  const vulnerabilities = `${account}/clusters/${first.id}/ingest/vulnerabilities`;
  onPhase('vulnerabilities');
  await timedPushes(data.vulnerabilities, reports(), (body) => client.push(vulnerabilities, body), tick);

  const runtime = `${account}/clusters/${first.id}/ingest/runtime`;
  onPhase('runtime');
  await timedPushes(
    data.runtime,
    runtimePushes(size.runtimeEvents),
    (body) => client.push(runtime, body, 'application/x-ndjson'),
    tick,
  );
  return data;
}

/** How many pushes `populateAccount` makes, for the progress bar. */
export function pushCount(size: DatasetSize): number {
  const c = size.cluster;
  const firstPush =
    c.serviceAccounts * 5 + c.bindings + c.namespaces * 2 + 40 + c.deployments * (2 + c.replicas);
  const perCluster =
    Math.ceil(firstPush / OBJECTS_PER_PUSH) +
    (c.podVersions - 1) * Math.ceil((c.deployments * c.replicas) / OBJECTS_PER_PUSH);
  return size.clusters * perCluster + size.images + Math.ceil(size.runtimeEvents / EVENTS_PER_PUSH);
}
