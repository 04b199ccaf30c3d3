/** One cluster: its record, links to its resources and containers, and its actions. */
import type { Cluster } from '../api/types.js';
import { ActionTable } from '../components/action-table.js';
import { ErrorMessage } from '../components/error-message.js';
import { Fields } from '../components/fields.js';
import { PageHeader } from '../components/page-header.js';
import { Loading } from '../components/status.js';
import { Time } from '../components/time.js';
import { useConsole } from '../context.js';
import { useApi } from '../hooks/use-api.js';
import { intParam, useUrlQuery } from '../hooks/use-url-query.js';
import { accountPath, clusterPath } from '../paths.js';
import { Link } from '../router.js';
import type { ViewProps } from '../routes.js';

export default function ClusterView({ account, params }: ViewProps) {
  const { offers } = useConsole();
  const clusterId = params.clusterId ?? '';
  const [query, setQuery] = useUrlQuery();
  const { data: cluster, error, loading } = useApi<Cluster>(clusterPath(account, clusterId));
  const clusterFilter = encodeURIComponent(`cluster_id:${clusterId}`);

  return (
    <>
      <PageHeader title={cluster ? `Cluster ${cluster.name}` : 'Cluster'}>
        <Link to={accountPath(account, '/clusters')}>All clusters</Link>
      </PageHeader>
      {error && <ErrorMessage error={error} />}
      {loading && <Loading what="Loading the cluster" />}
      {cluster && (
        <>
          <Fields
            items={[
              ['Name', cluster.name],
              ['Id', <code key="id">{cluster.id}</code>],
              ['Registered', <Time key="c" value={cluster.created_at} />],
              ['Last report', <Time key="r" value={cluster.last_ingested_at} empty="never" />],
            ]}
          />
          <ul className="link-row">
            {offers('GET /accounts/{account_id}/resources') && (
              <li>
                <Link to={accountPath(account, `/resources?cluster_id=${encodeURIComponent(clusterId)}`)}>
                  Resources of this cluster
                </Link>
              </li>
            )}
            {offers('GET /accounts/{account_id}/inventory_containers') && (
              <li>
                <Link to={accountPath(account, `/containers?filters=${clusterFilter}`)}>
                  Containers of this cluster
                </Link>
              </li>
            )}
          </ul>
          {offers('GET /accounts/{account_id}/clusters/{cluster_id}/actions') && (
            <section aria-labelledby="actions-title">
              <h2 id="actions-title">Actions</h2>
              <ActionTable
                path={clusterPath(account, clusterId, '/actions')}
                page={intParam(query.page, 1, 1, Number.MAX_SAFE_INTEGER)}
                pageSize={intParam(query.page_size, 50)}
                onPage={(n) => setQuery({ page: String(n) }, { keepPaging: true })}
                onPageSize={(n) => setQuery({ page_size: String(n) })}
              />
            </section>
          )}
        </>
      )}
    </>
  );
}
