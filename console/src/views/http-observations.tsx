/**
 * HTTP requests seen between workloads (#5), aggregated by path template: who called what, how
 * often, whether personal data was in the request (its labels, never the values) and whether the
 * destination is in one of the account's trusted IP prefixes. Search, filters and offset live in
 * the URL.
 */
import type { HttpObservation, OffsetList } from '../api/types.js';
import { type Column, DataTable } from '../components/data-table.js';
import { ErrorMessage } from '../components/error-message.js';
import { FilterBar } from '../components/filter-bar.js';
import { PageHeader } from '../components/page-header.js';
import { OffsetPager } from '../components/pager.js';
import { SearchForm } from '../components/search-form.js';
import { Empty, Loading } from '../components/status.js';
import { Time } from '../components/time.js';
import { useApi } from '../hooks/use-api.js';
import { useClusters } from '../hooks/use-clusters.js';
import { intParam, useUrlQuery } from '../hooks/use-url-query.js';
import { piiLabel } from '../labels.js';
import { accountPath } from '../paths.js';
import type { ViewProps } from '../routes.js';

/** The filter keys of #5 (docs/runtime-api.md). */
const FILTER_KEYS = [
  'has_pii',
  'method',
  'path',
  'scheme',
  'cluster_id',
  'source_workload_namespace',
  'source_workload_name',
  'destination_workload_namespace',
  'destination_workload_name',
] as const;

const workload = (namespace: string, name: string, fallback: string) =>
  name ? `${namespace ? `${namespace}/` : ''}${name}` : fallback;

export default function HttpObservationsView({ account }: ViewProps) {
  const [query, setQuery] = useUrlQuery();
  const { clusters } = useClusters(account);
  const limit = intParam(query.limit, 100);
  const offset = intParam(query.offset, 0, 0, Number.MAX_SAFE_INTEGER);
  const { data, error, loading } = useApi<OffsetList<HttpObservation>>(
    accountPath(account, '/container_runtime_insights/http_requests'),
    { q: query.q, filters: query.filters, limit, offset },
  );

  const columns: Column<HttpObservation>[] = [
    {
      key: 'request',
      label: 'Request',
      render: (o) => (
        <code>
          {o.method} {o.path}
        </code>
      ),
    },
    {
      key: 'pii',
      label: 'Personal data',
      render: (o) =>
        o.has_pii ? (
          <ul className="chips" aria-label="Personal data labels">
            {o.pii_labels.map((label) => (
              <li key={label} className="badge badge-pii">
                {piiLabel(label)}
              </li>
            ))}
          </ul>
        ) : (
          <span className="muted">none</span>
        ),
    },
    {
      key: 'from',
      label: 'From',
      render: (o) => workload(o.source_workload_namespace, o.source_workload_name, 'outside the cluster'),
    },
    {
      key: 'to',
      label: 'To',
      render: (o) => (
        <>
          {workload(
            o.destination_workload_namespace,
            o.destination_workload_name,
            o.destination_hostname || o.destination_addr,
          )}
          <span className="cell-note">
            {o.destination_hostname || o.destination_addr}:{o.destination_port}
          </span>
        </>
      ),
    },
    {
      key: 'trusted',
      label: 'Destination',
      render: (o) =>
        o.trusted_ip ? (
          <span className="badge badge-trusted" title={o.trusted_ip_description}>
            trusted {o.trusted_ip_prefix}
          </span>
        ) : (
          <span className="badge badge-untrusted">not trusted</span>
        ),
    },
    { key: 'count', label: 'Requests', className: 'numeric', render: (o) => o.request_count },
    { key: 'last', label: 'Last seen', render: (o) => <Time value={o.last_seen_at} /> },
  ];

  return (
    <>
      <PageHeader title="HTTP observations">
        HTTP requests between the workloads of {account.name}, most recently seen first. Paths are templates:
        personal data shows as its label, never its value.
      </PageHeader>
      <div className="card">
        <SearchForm
          value={query.q}
          onSearch={(q) => setQuery({ q })}
          label="Search"
          hint="Matches path, method, destination host or service, and workload names and namespaces."
        />
        <FilterBar
          keys={FILTER_KEYS}
          labels={{ has_pii: 'Personal data', cluster_id: 'Cluster' }}
          values={{
            has_pii: ['true', 'false'],
            scheme: ['http', 'https'],
            cluster_id: clusters.map((c) => ({ value: c.id, label: c.name })),
          }}
          value={query.filters}
          onChange={(filters) => setQuery({ filters })}
        />
      </div>
      {error && <ErrorMessage error={error} />}
      {loading && <Loading what="Loading HTTP observations" />}
      {data && data.entries.length === 0 && (
        <Empty>
          {query.q || query.filters ? 'No observation matches.' : 'No HTTP request observed yet.'}
        </Empty>
      )}
      {data && data.entries.length > 0 && (
        <>
          <DataTable caption="HTTP observations" columns={columns} rows={data.entries} rowKey={(o) => o.id} />
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
