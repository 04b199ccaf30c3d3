/**
 * The load cases: each list endpoint's common queries (page 1 with its total, a deep page, a
 * filter, a sort, `q`), the tiny authenticated response and `POST /authentication/authenticate`.
 * Deep pages are placed at 90% of the list's true total, read from a probe of page 1, so they
 * move with the dataset size. The finding groups are a bare array up to `limit`, newest first,
 * with neither a total nor an offset (docs/findings.md): their first `limit` and a filter.
 */
import type { ApiClient } from './api-client.js';

export interface LoadCase {
  name: string;
  /** endpoint label for the tables, e.g. `inventory_containers` */
  endpoint: string;
  kind: 'page1' | 'deep' | 'filter' | 'sort' | 'q' | 'tiny' | 'auth';
  method: 'GET' | 'POST';
  path: string;
  body?: string;
  /** false for the login: it sends no token */
  authenticated: boolean;
}

interface Listing {
  endpoint: string;
  path: string;
  /** `limit`: a bare array, without a total or a deep page */
  paging: 'offset' | 'page' | 'limit';
  filter: string;
  /** further filters, each its own `filter` case named `<endpoint> filter <label>` */
  moreFilters?: { label: string; query: string }[];
  sort: string;
  q?: string;
}

const listings = (account: string, cluster: string): Listing[] => [
  {
    endpoint: 'inventory_containers',
    path: `${account}/inventory_containers`,
    paging: 'offset',
    filter: 'filters=owner_namespace:team-3',
    // a cluster picked in the console: half the account's containers (docs/performance.md, "Fix 76");
    // the workloads' kind: nearly all of them ("Fix 77"); the sidecars' image: the generated pods'
    // `proxy` containers (100,000 at large), in name order after their `app` and `main` ones ("Fix 78")
    moreFilters: [
      { label: 'by cluster', query: `filters=cluster_id:${cluster}` },
      { label: 'by owner kind', query: 'filters=owner_kind:Deployment' },
      { label: 'by image', query: 'filters=image_repo:docker.io/envoyproxy/envoy' },
    ],
    sort: 'sort=image_digest:desc',
    q: 'q=svc-12',
  },
  {
    endpoint: 'inventory_packages',
    path: `${account}/inventory_packages`,
    paging: 'offset',
    filter: 'filters=severity:critical',
    sort: 'sort=critical_count:desc',
    q: 'q=service12',
  },
  {
    endpoint: 'resources',
    path: `${account}/resources`,
    paging: 'page',
    filter: `resource_types=Pod&namespace=team-3&cluster_id=${cluster}`,
    // one kind across the clusters: 128,136 live pods at large (docs/performance.md, "Fix 76")
    moreFilters: [{ label: 'by kind', query: 'resource_types=Pod' }],
    sort: 'sort=ingested_at:desc',
  },
  {
    endpoint: 'identities',
    path: `${account}/identities`,
    paging: 'page',
    filter: 'risk_levels=High,Critical',
    sort: 'sort=name:asc',
    q: 'q=sa-1',
  },
  {
    endpoint: 'http_requests',
    path: `${account}/container_runtime_insights/http_requests`,
    paging: 'offset',
    filter: 'filters=method:POST',
    sort: '',
    q: 'q=api',
  },
  {
    endpoint: 'baseline_fingerprints',
    path: `${account}/container_runtime_latest_baseline_fingerprints`,
    paging: 'page',
    filter: 'filters=namespace:ns-1',
    sort: 'sort=workload_name:asc',
    q: 'q=svc',
  },
  {
    endpoint: 'runtime_insights',
    path: `${account}/container_runtime_insights`,
    paging: 'offset',
    filter: '',
    sort: 'sort=severity:desc',
  },
  {
    endpoint: 'finding_groups',
    path: `${account}/unified_findings/groups`,
    paging: 'limit',
    // the console's and docs/findings.md's example: what is open and serious
    filter: 'filters=status:open,severity:critical,severity:high',
    sort: '',
  },
];

function firstPage(listing: Listing): string {
  return listing.paging === 'page' ? 'page=1&page_size=50' : 'limit=100';
}

function deepPage(listing: Listing, total: number): string {
  if (listing.paging === 'offset') return `limit=100&offset=${Math.floor((total * 0.9) / 100) * 100}`;
  return `page=${Math.max(1, Math.floor((total * 0.9) / 50))}&page_size=50`;
}

export async function buildCases(
  client: ApiClient,
  ids: { accountId: string; clusterId: string; key: { id: string; secret: string } },
): Promise<LoadCase[]> {
  const account = `/accounts/${ids.accountId}`;
  const cases: LoadCase[] = [
    {
      name: 'authenticate',
      endpoint: 'authentication',
      kind: 'auth',
      method: 'POST',
      path: '/authentication/authenticate',
      body: JSON.stringify({ access_key_id: ids.key.id, secret_key: ids.key.secret }),
      authenticated: false,
    },
    {
      name: 'account (tiny)',
      endpoint: 'accounts',
      kind: 'tiny',
      method: 'GET',
      path: account,
      authenticated: true,
    },
  ];
  for (const listing of listings(account, ids.clusterId)) {
    const page1 = `${listing.path}?${firstPage(listing)}`;
    const total =
      listing.paging === 'limit' ? 0 : (await client.get<{ total_count: number }>(page1)).total_count;
    const add = (kind: LoadCase['kind'], query: string, label = '') =>
      cases.push({
        name: `${listing.endpoint} ${kind}${label && ` ${label}`}`,
        endpoint: listing.endpoint,
        kind,
        method: 'GET',
        path: `${listing.path}?${query}`,
        authenticated: true,
      });
    add('page1', firstPage(listing));
    if (total > 200) add('deep', deepPage(listing, total));
    if (listing.filter) add('filter', `${firstPage(listing)}&${listing.filter}`);
    for (const { label, query } of listing.moreFilters ?? [])
      add('filter', `${firstPage(listing)}&${query}`, label);
    if (listing.sort) add('sort', `${firstPage(listing)}&${listing.sort}`);
    if (listing.q) add('q', `${firstPage(listing)}&${listing.q}`);
  }
  return cases;
}
