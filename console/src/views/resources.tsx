/**
 * Kubernetes objects the account's clusters reported: filter by cluster, namespace, kinds and
 * ingestion time (RFC 3339 or now-15m), include past versions, sort, page. Each row opens the
 * record with its raw object.
 */
import type { FormEvent } from 'react';
import type { PageList, ResourceRecord } from '../api/types.js';
import { type Column, DataTable, formatSort, parseSort } from '../components/data-table.js';
import { ErrorMessage } from '../components/error-message.js';
import { PageHeader } from '../components/page-header.js';
import { PagePager } from '../components/pager.js';
import { Empty, Loading } from '../components/status.js';
import { Time } from '../components/time.js';
import { useApi } from '../hooks/use-api.js';
import { useClusters } from '../hooks/use-clusters.js';
import { intParam, type UrlQuery, useUrlQuery } from '../hooks/use-url-query.js';
import { accountPath, resourcePath } from '../paths.js';
import { recordState } from '../record-state.js';
import { Link } from '../router.js';
import type { ViewProps } from '../routes.js';

const DEFAULT_SORT = { field: 'name', direction: 'asc' } as const;
const TEXT_FILTERS = ['namespace', 'resource_types', 'from', 'to'] as const;

export default function ResourcesView({ account }: ViewProps) {
  const [query, setQuery] = useUrlQuery();
  const { clusters, nameOf } = useClusters(account);
  const sort = parseSort(query.sort, DEFAULT_SORT);
  const page = intParam(query.page, 1, 1, Number.MAX_SAFE_INTEGER);
  const pageSize = intParam(query.page_size, 50);
  const { data, error, loading } = useApi<PageList<ResourceRecord>>(accountPath(account, '/resources'), {
    cluster_id: query.cluster_id,
    namespace: query.namespace,
    resource_types: query.resource_types,
    from: query.from,
    to: query.to,
    include_history: query.include_history,
    sort: query.sort,
    page,
    page_size: pageSize,
  });

  function applyFilters(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const patch: UrlQuery = { cluster_id: String(form.get('cluster_id') ?? '') || undefined };
    for (const key of TEXT_FILTERS) patch[key] = String(form.get(key) ?? '').trim() || undefined;
    patch.include_history = form.get('include_history') ? 'true' : undefined;
    setQuery(patch);
  }

  const columns: Column<ResourceRecord>[] = [
    { key: 'kind', label: 'Kind', sort: 'kind', render: (r) => r.kind },
    {
      key: 'namespace',
      label: 'Namespace',
      sort: 'namespace',
      render: (r) => r.namespace || <span className="muted">cluster</span>,
    },
    {
      key: 'name',
      label: 'Name',
      sort: 'name',
      render: (r) => <Link to={resourcePath(account, r.cluster_id, r.id)}>{r.name}</Link>,
    },
    { key: 'cluster', label: 'Cluster', render: (r) => nameOf(r.cluster_id) },
    { key: 'type', label: 'Type', render: (r) => r.entity_type },
    {
      key: 'state',
      label: 'State',
      render: (r) => <span className={`badge badge-${recordState(r)}`}>{recordState(r)}</span>,
    },
    {
      key: 'ingested',
      label: 'Ingested',
      sort: 'ingested_at',
      render: (r) => <Time value={r.ingested_at} />,
    },
  ];

  return (
    <>
      <PageHeader title="Resources">
        Kubernetes objects reported by the clusters of {account.name}.
      </PageHeader>
      <form
        className="filters card"
        onSubmit={applyFilters}
        aria-label="Resource filters"
        key={JSON.stringify(query)}
      >
        <div className="filter-field">
          <label htmlFor="res-cluster">Cluster</label>
          <select id="res-cluster" name="cluster_id" defaultValue={query.cluster_id ?? ''}>
            <option value="">All clusters</option>
            {clusters.map((c) => (
              <option key={c.id} value={c.id}>
                {c.name}
              </option>
            ))}
          </select>
        </div>
        <div className="filter-field">
          <label htmlFor="res-namespace">Namespace</label>
          <input
            id="res-namespace"
            name="namespace"
            defaultValue={query.namespace ?? ''}
            placeholder="default,shop"
          />
        </div>
        <div className="filter-field">
          <label htmlFor="res-kinds">Kinds</label>
          <input
            id="res-kinds"
            name="resource_types"
            defaultValue={query.resource_types ?? ''}
            placeholder="Pod,Deployment"
          />
        </div>
        <div className="filter-field">
          <label htmlFor="res-from">Ingested from</label>
          <input id="res-from" name="from" defaultValue={query.from ?? ''} placeholder="now-7d" />
        </div>
        <div className="filter-field">
          <label htmlFor="res-to">to</label>
          <input id="res-to" name="to" defaultValue={query.to ?? ''} placeholder="now" />
        </div>
        <div className="filter-field filter-check">
          <input
            id="res-history"
            name="include_history"
            type="checkbox"
            defaultChecked={query.include_history === 'true'}
          />
          <label htmlFor="res-history">Include replaced and deleted versions</label>
        </div>
        <div className="filter-actions">
          <button type="submit" className="button button-primary">
            Apply
          </button>
          <Link to={accountPath(account, '/resources')} className="button button-quiet">
            Reset
          </Link>
        </div>
      </form>
      {error && <ErrorMessage error={error} />}
      {loading && <Loading what="Loading resources" />}
      {data && data.entries.length === 0 && <Empty>No resource matches these filters.</Empty>}
      {data && data.entries.length > 0 && (
        <>
          <DataTable
            caption="Resources"
            columns={columns}
            rows={data.entries}
            rowKey={(r) => `${r.cluster_id}/${r.id}`}
            sort={sort}
            onSort={(next) => setQuery({ sort: formatSort(next) })}
          />
          <PagePager
            page={data.page}
            pageCount={data.page_count}
            pageSize={data.page_size}
            total={data.total_count}
            onPage={(n) => setQuery({ page: String(n) }, { keepPaging: true })}
            onPageSize={(n) => setQuery({ page_size: String(n) })}
          />
        </>
      )}
    </>
  );
}
