/**
 * The account at a glance, from the lists this server offers: how many clusters, live resources,
 * containers, registries, actions and members it holds, resources by kind, containers by cluster,
 * and the clusters that reported most recently; then the risks (overview-risks.tsx). Every number
 * is an API total and links to its list.
 */
import { api } from '../api/client.js';
import type { Account, Cluster, PageList, Registry } from '../api/types.js';
import { type Bar, BarChart } from '../components/bar-chart.js';
import { ErrorMessage } from '../components/error-message.js';
import { PageHeader } from '../components/page-header.js';
import { Loading } from '../components/status.js';
import { Time } from '../components/time.js';
import { useConsole } from '../context.js';
import { useLoad } from '../hooks/use-load.js';
import { accountPath, clusterPath } from '../paths.js';
import { Link } from '../router.js';
import type { ViewProps } from '../routes.js';
import { loadRiskOverview, type RiskOverview, RiskPanels } from './overview-risks.js';

/** Kinds worth a bar; the resources view lists every kind. */
const KINDS = [
  'Namespace',
  'Deployment',
  'StatefulSet',
  'DaemonSet',
  'ReplicaSet',
  'Job',
  'CronJob',
  'Pod',
  'Service',
  'Ingress',
  'ConfigMap',
  'ServiceAccount',
  'Role',
  'RoleBinding',
  'ClusterRole',
  'ClusterRoleBinding',
  'NetworkPolicy',
];
/** Per-cluster bars cost one call each: beyond this many clusters the chart is left out. */
const MAX_CLUSTER_BARS = 20;

interface Tile {
  label: string;
  value: number;
  to: string;
}

interface Overview {
  tiles: Tile[];
  risks: RiskOverview;
  kinds: Bar[];
  containersByCluster: Bar[];
  recent: Cluster[];
}

async function loadOverview(account: Account, offers: (op: string) => boolean, signal: AbortSignal) {
  const base = accountPath(account);
  const get = <T,>(path: string, query: Record<string, string | number> = {}) =>
    api<T>('GET', path, { query, signal });
  const total = async (path: string, query: Record<string, string | number>) =>
    (await get<{ total_count: number }>(path, query)).total_count;
  const risks = loadRiskOverview(account, offers, signal); // in parallel with the counts below
  const overview: Omit<Overview, 'risks'> = { tiles: [], kinds: [], containersByCluster: [], recent: [] };

  let clusters: Cluster[] = [];
  if (offers('GET /accounts/{account_id}/clusters')) {
    const list = await get<PageList<Cluster>>(`${base}/clusters`, {
      page_size: 1000,
      sort: 'last_ingested_at:desc',
    });
    clusters = list.entries;
    overview.tiles.push({ label: 'Clusters', value: list.total_count, to: `${base}/clusters` });
    overview.recent = clusters.filter((c) => c.last_ingested_at).slice(0, 5);
  }
  const tasks: Promise<void>[] = [];
  if (offers('GET /accounts/{account_id}/resources')) {
    tasks.push(
      total(`${base}/resources`, { page_size: 1 }).then((value) => {
        overview.tiles.push({ label: 'Live resources', value, to: `${base}/resources` });
      }),
      Promise.all(
        KINDS.map(async (kind) => ({
          label: kind,
          value: await total(`${base}/resources`, { page_size: 1, resource_types: kind }),
          to: `${base}/resources?resource_types=${kind}`,
        })),
      ).then((bars) => {
        overview.kinds = bars.filter((bar) => bar.value > 0);
      }),
    );
  }
  if (offers('GET /accounts/{account_id}/inventory_containers')) {
    const path = `${base}/inventory_containers`;
    tasks.push(
      total(path, { limit: 1 }).then((value) => {
        overview.tiles.push({ label: 'Containers', value, to: `${base}/containers` });
      }),
    );
    if (clusters.length > 0 && clusters.length <= MAX_CLUSTER_BARS) {
      tasks.push(
        Promise.all(
          clusters.map(async (cluster) => {
            const filter = `cluster_id:${cluster.id}`;
            return {
              label: cluster.name,
              value: await total(path, { limit: 1, filters: filter }),
              to: `${base}/containers?filters=${encodeURIComponent(filter)}`,
            };
          }),
        ).then((bars) => {
          overview.containersByCluster = bars;
        }),
      );
    }
  }
  if (offers('GET /accounts/{account_id}/registries')) {
    tasks.push(
      get<Registry[]>(`${base}/registries`).then((registries) => {
        overview.tiles.push({ label: 'Registries', value: registries.length, to: `${base}/registries` });
      }),
    );
  }
  if (
    offers('GET /accounts/{account_id}/clusters/{cluster_id}/actions') &&
    clusters.length <= MAX_CLUSTER_BARS
  ) {
    tasks.push(
      Promise.all(
        clusters.map((c) => total(`${base}/clusters/${encodeURIComponent(c.id)}/actions`, { page_size: 1 })),
      ).then((counts) => {
        const value = counts.reduce((sum, n) => sum + n, 0);
        overview.tiles.push({ label: 'Cluster actions', value, to: `${base}/actions` });
      }),
    );
  }
  if (offers('GET /accounts/{account_id}/users')) {
    tasks.push(
      total(`${base}/users`, { limit: 1 }).then((value) => {
        overview.tiles.push({ label: 'Members', value, to: `${base}/users` });
      }),
    );
  }
  await Promise.all(tasks);
  const order = ['Clusters', 'Live resources', 'Containers', 'Registries', 'Cluster actions', 'Members'];
  overview.tiles.sort((a, b) => order.indexOf(a.label) - order.indexOf(b.label));
  return { ...overview, risks: await risks };
}

export default function OverviewView({ account }: ViewProps) {
  const { offers } = useConsole();
  const { data, error, loading } = useLoad(account.id, (signal) => loadOverview(account, offers, signal));

  return (
    <>
      <PageHeader title="Overview">
        Account <strong>{account.name}</strong>
      </PageHeader>
      {loading && <Loading what="Counting" />}
      {error && <ErrorMessage error={error} />}
      {data && (
        <>
          <ul className="tiles" aria-label="Totals">
            {data.tiles.map((tile) => (
              <li key={tile.label} className="tile">
                <Link to={tile.to}>
                  <span className="tile-value">{tile.value}</span>
                  <span className="tile-label">{tile.label}</span>
                </Link>
              </li>
            ))}
          </ul>
          <RiskPanels account={account} risks={data.risks} />
          <div className="overview-grid">
            {data.kinds.length > 0 && <BarChart title="Live resources by kind" bars={data.kinds} />}
            {data.containersByCluster.length > 0 && (
              <BarChart title="Containers by cluster" bars={data.containersByCluster} />
            )}
            <section className="card" aria-labelledby="recent-title">
              <h2 id="recent-title">Latest cluster reports</h2>
              {data.recent.length === 0 ? (
                <p className="empty">
                  No cluster has reported yet. Push a cluster's objects with <code>posture ingest</code> (see
                  the API reference at <a href="/docs">/docs</a>).
                </p>
              ) : (
                <ul className="plain-list">
                  {data.recent.map((cluster) => (
                    <li key={cluster.id}>
                      <Link to={clusterPath(account, cluster.id)}>{cluster.name}</Link>{' '}
                      <span className="muted">
                        <Time value={cluster.last_ingested_at} />
                      </span>
                    </li>
                  ))}
                </ul>
              )}
            </section>
          </div>
        </>
      )}
    </>
  );
}
