/** Actions requested on the account's clusters (pod terminations), one cluster at a time. */
import { ActionTable } from '../components/action-table.js';
import { ErrorMessage } from '../components/error-message.js';
import { PageHeader } from '../components/page-header.js';
import { Empty, Loading } from '../components/status.js';
import { useClusters } from '../hooks/use-clusters.js';
import { intParam, useUrlQuery } from '../hooks/use-url-query.js';
import { clusterPath } from '../paths.js';
import type { ViewProps } from '../routes.js';

export default function ActionsView({ account }: ViewProps) {
  const [query, setQuery] = useUrlQuery();
  const { clusters, error, loading } = useClusters(account);
  const selected = clusters.find((c) => c.id === query.cluster_id) ?? clusters[0];

  return (
    <>
      <PageHeader title="Cluster actions">Actions requested on a cluster, most recent first.</PageHeader>
      {error && <ErrorMessage error={error} />}
      {loading && <Loading what="Loading clusters" />}
      {!loading && !error && clusters.length === 0 && (
        <Empty>No cluster is registered in this account yet.</Empty>
      )}
      {selected && (
        <>
          <div className="toolbar">
            <label htmlFor="action-cluster">Cluster</label>
            <select
              id="action-cluster"
              value={selected.id}
              onChange={(event) => setQuery({ cluster_id: event.target.value })}
            >
              {clusters.map((c) => (
                <option key={c.id} value={c.id}>
                  {c.name}
                </option>
              ))}
            </select>
          </div>
          <ActionTable
            path={clusterPath(account, selected.id, '/actions')}
            page={intParam(query.page, 1, 1, Number.MAX_SAFE_INTEGER)}
            pageSize={intParam(query.page_size, 50)}
            onPage={(n) => setQuery({ page: String(n) }, { keepPaging: true })}
            onPageSize={(n) => setQuery({ page_size: String(n) })}
          />
        </>
      )}
    </>
  );
}
