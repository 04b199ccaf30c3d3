/**
 * Containers of the account's live pods: search (`q`), exact filters (`filters`), sort and page,
 * all in the URL. A container's workload links to that object's newest record.
 */
import type { InventoryContainer, OffsetList } from '../api/types.js';
import { type Column, DataTable, formatSort, parseSort } from '../components/data-table.js';
import { ErrorMessage } from '../components/error-message.js';
import { FilterBar } from '../components/filter-bar.js';
import { PageHeader } from '../components/page-header.js';
import { OffsetPager } from '../components/pager.js';
import { SearchForm } from '../components/search-form.js';
import { Empty, Loading } from '../components/status.js';
import { useConsole } from '../context.js';
import { useApi } from '../hooks/use-api.js';
import { intParam, useUrlQuery } from '../hooks/use-url-query.js';
import { accountPath, objectPath } from '../paths.js';
import { Link } from '../router.js';
import type { ViewProps } from '../routes.js';

/** The filter keys GET inventory_containers accepts (its OpenAPI parameter description). */
const FILTER_KEYS = [
  'cluster_name',
  'cluster_id',
  'name',
  'image_repo',
  'image_name',
  'image_tag',
  'image_digest',
  'owner_kind',
  'owner_name',
  'owner_namespace',
  'owner_uid',
  'owner_id',
  'pod_name',
  'pod_uid',
  'container_id',
] as const;

const DEFAULT_SORT = { field: 'name', direction: 'asc' } as const;

const shortDigest = (digest: string) => (digest.startsWith('sha256:') ? `${digest.slice(0, 19)}…` : digest);

export default function ContainersView({ account }: ViewProps) {
  const { offers } = useConsole();
  const [query, setQuery] = useUrlQuery();
  const sort = parseSort(query.sort, DEFAULT_SORT);
  const limit = intParam(query.limit, 100);
  const offset = intParam(query.offset, 0, 0, Number.MAX_SAFE_INTEGER);
  const { data, error, loading } = useApi<OffsetList<InventoryContainer>>(
    accountPath(account, '/inventory_containers'),
    { q: query.q, filters: query.filters, sort: query.sort, limit, offset },
  );
  const canFollow = offers('GET /clusters/{cluster_id}/resources/{uid}/latest');

  const columns: Column<InventoryContainer>[] = [
    { key: 'name', label: 'Container', sort: 'name', render: (c) => c.name },
    {
      key: 'image',
      label: 'Image',
      sort: 'image_repo',
      render: (c) => (
        <code>
          {c.image_repo}
          {c.image_tag ? `:${c.image_tag}` : ''}
        </code>
      ),
    },
    {
      key: 'digest',
      label: 'Digest',
      sort: 'image_digest',
      render: (c) =>
        c.image_digest ? (
          <code title={c.image_digest}>{shortDigest(c.image_digest)}</code>
        ) : (
          <span className="muted">—</span>
        ),
    },
    {
      key: 'owner',
      label: 'Workload',
      sort: 'owner_name',
      render: (c) => {
        const label = `${c.owner_kind}/${c.owner_name}`;
        return canFollow && c.owner_uid ? (
          <Link to={objectPath(account, c.cluster_id, c.owner_uid)}>{label}</Link>
        ) : (
          label
        );
      },
    },
    { key: 'namespace', label: 'Namespace', sort: 'owner_namespace', render: (c) => c.owner_namespace },
    { key: 'pod', label: 'Pod', render: (c) => c.pod_name },
    { key: 'cluster', label: 'Cluster', sort: 'cluster_name', render: (c) => c.cluster_name },
  ];

  return (
    <>
      <PageHeader title="Containers">Containers running in the live pods of {account.name}.</PageHeader>
      <div className="card">
        <SearchForm
          value={query.q}
          onSearch={(q) => setQuery({ q })}
          label="Search"
          hint="Matches container, image, workload, namespace, pod, container id or cluster name."
        />
        <FilterBar keys={FILTER_KEYS} value={query.filters} onChange={(filters) => setQuery({ filters })} />
      </div>
      {error && <ErrorMessage error={error} />}
      {loading && <Loading what="Loading containers" />}
      {data && data.entries.length === 0 && <Empty>No container matches.</Empty>}
      {data && data.entries.length > 0 && (
        <>
          <DataTable
            caption="Containers"
            columns={columns}
            rows={data.entries}
            rowKey={(c) => c.id}
            sort={sort}
            onSort={(next) => setQuery({ sort: formatSort(next) })}
          />
          <OffsetPager
            offset={offset}
            limit={limit}
            total={data.total_count}
            hasMore={data.has_more}
            shown={data.entries.length}
            onOffset={(n) => setQuery({ offset: String(n) }, { keepPaging: true })}
            onLimit={(n) => setQuery({ limit: String(n) })}
          />
        </>
      )}
    </>
  );
}
