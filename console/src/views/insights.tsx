/**
 * Runtime insights: one per workload container that drifted from its baseline or raised an alert,
 * most recently updated first. Cluster filter and sort map to the API's `filters` and `sort`;
 * each row opens the insight with its process tree.
 */
import type { OffsetList, RuntimeInsightSummary } from '../api/types.js';
import { type Column, DataTable, formatSort, parseSort } from '../components/data-table.js';
import { ErrorMessage } from '../components/error-message.js';
import { FilterBar } from '../components/filter-bar.js';
import { PageHeader } from '../components/page-header.js';
import { OffsetPager } from '../components/pager.js';
import { SeverityBadge } from '../components/severity.js';
import { Empty, Loading } from '../components/status.js';
import { Time } from '../components/time.js';
import { useApi } from '../hooks/use-api.js';
import { useClusters } from '../hooks/use-clusters.js';
import { intParam, useUrlQuery } from '../hooks/use-url-query.js';
import { accountPath, insightPath } from '../paths.js';
import { Link } from '../router.js';
import type { ViewProps } from '../routes.js';

const DEFAULT_SORT = { field: 'updated_at', direction: 'desc' } as const;

export function workloadOf(insight: RuntimeInsightSummary): string {
  const { namespace, pod_name } = insight.summary.kube_meta;
  return `${namespace}/${pod_name}`;
}

export default function InsightsView({ account }: ViewProps) {
  const [query, setQuery] = useUrlQuery();
  const { clusters, nameOf } = useClusters(account);
  const sort = parseSort(query.sort, DEFAULT_SORT);
  const limit = intParam(query.limit, 100);
  const offset = intParam(query.offset, 0, 0, Number.MAX_SAFE_INTEGER);
  const { data, error, loading } = useApi<OffsetList<RuntimeInsightSummary>>(
    accountPath(account, '/container_runtime_insights'),
    { filters: query.filters, sort: query.sort, limit, offset },
  );

  const columns: Column<RuntimeInsightSummary>[] = [
    {
      key: 'severity',
      label: 'Severity',
      sort: 'severity',
      render: (i) => <SeverityBadge value={i.severity} />,
    },
    {
      key: 'container',
      label: 'Container',
      render: (i) => (
        <Link to={insightPath(account, i.id)}>
          {i.summary.container_meta.container_name} in {workloadOf(i)}
        </Link>
      ),
    },
    {
      key: 'state',
      label: 'State',
      render: (i) => (
        <>
          {i.state}
          {i.malicious && <span className="badge severity severity-critical">malicious</span>}
        </>
      ),
    },
    {
      key: 'image',
      label: 'Image',
      render: (i) => <code>{i.summary.container_meta.container_image_name}</code>,
    },
    { key: 'cluster', label: 'Cluster', render: (i) => nameOf(i.clusterID) },
    { key: 'created', label: 'Raised', sort: 'created_at', render: (i) => <Time value={i.createdAt} /> },
    { key: 'updated', label: 'Updated', sort: 'updated_at', render: (i) => <Time value={i.updatedAt} /> },
  ];

  return (
    <>
      <PageHeader title="Runtime insights">
        Workload containers of {account.name} that did what their baseline does not cover, or raised an alert.
      </PageHeader>
      <div className="card">
        <FilterBar
          keys={['cluster_id', 'container_id']}
          labels={{ cluster_id: 'Cluster', container_id: 'Container id' }}
          values={{ cluster_id: clusters.map((c) => ({ value: c.id, label: c.name })) }}
          value={query.filters}
          onChange={(filters) => setQuery({ filters })}
        />
      </div>
      {error && <ErrorMessage error={error} />}
      {loading && <Loading what="Loading insights" />}
      {data && data.entries.length === 0 && (
        <Empty>
          {query.filters ? 'No insight matches these filters.' : 'No runtime insight: nothing drifted.'}
        </Empty>
      )}
      {data && data.entries.length > 0 && (
        <>
          <DataTable
            caption="Runtime insights"
            columns={columns}
            rows={data.entries}
            rowKey={(i) => i.id}
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
