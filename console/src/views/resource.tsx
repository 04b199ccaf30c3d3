/**
 * One resource record with its raw object: by record id (a version), or the newest version of an
 * object by uid (the target of owner links).
 */
import type { ResourceRecord } from '../api/types.js';
import { ErrorMessage } from '../components/error-message.js';
import { Fields } from '../components/fields.js';
import { PageHeader } from '../components/page-header.js';
import { RawObject } from '../components/raw-object.js';
import { Loading } from '../components/status.js';
import { Time } from '../components/time.js';
import { useConsole } from '../context.js';
import { useApi } from '../hooks/use-api.js';
import { accountPath, clusterPath, objectPath } from '../paths.js';
import { recordState } from '../record-state.js';
import { Link } from '../router.js';
import type { ViewProps } from '../routes.js';

export default function ResourceView({ account, params }: ViewProps) {
  const { offers } = useConsole();
  const clusterId = encodeURIComponent(params.clusterId ?? '');
  const path = params.uid
    ? `/clusters/${clusterId}/resources/${encodeURIComponent(params.uid)}/latest`
    : `/clusters/${clusterId}/resources/${encodeURIComponent(params.resourceId ?? '')}`;
  const { data: record, error, loading } = useApi<ResourceRecord>(path, { with_payload: true });
  const canFollow = offers('GET /clusters/{cluster_id}/resources/{uid}/latest');

  return (
    <>
      <PageHeader title={record ? `${record.kind} ${record.name}` : 'Resource'}>
        <Link to={accountPath(account, '/resources')}>All resources</Link>
      </PageHeader>
      {error && <ErrorMessage error={error} />}
      {loading && <Loading what="Loading the resource" />}
      {record && (
        <>
          <Fields
            items={[
              ['Kind', `${record.kind} (${record.api_version})`],
              ['Namespace', record.namespace || 'cluster-scoped'],
              [
                'Cluster',
                <Link key="c" to={clusterPath(account, record.cluster_id)}>
                  {record.cluster_id}
                </Link>,
              ],
              ['Record id', <code key="id">{record.id}</code>],
              ['Uid', <code key="uid">{record.uid}</code>],
              ['Resource version', record.resource_version],
              ['Type', record.entity_type],
              ['State', recordState(record)],
              [
                'Owner',
                record.owner_uid &&
                  (canFollow ? (
                    <Link key="o" to={objectPath(account, record.cluster_id, record.owner_uid)}>
                      {record.owner_uid}
                    </Link>
                  ) : (
                    <code key="o">{record.owner_uid}</code>
                  )),
              ],
              ['Created in the cluster', <Time key="rc" value={record.resource_created_at} />],
              ['Ingested', <Time key="i" value={record.ingested_at} />],
              ['Replaced', <Time key="v" value={record.version_overwritten_at} />],
              [
                'Deleted',
                record.deleted_at && (
                  <span key="d">
                    <Time value={record.deleted_at} /> ({record.deletion_source})
                  </span>
                ),
              ],
            ]}
          />
          {record.version_overwritten_at && canFollow && !params.uid && (
            <p>
              <Link to={objectPath(account, record.cluster_id, record.uid)}>
                Open the newest version of this object
              </Link>
            </p>
          )}
          {record.raw ? (
            <RawObject raw={record.raw} />
          ) : (
            <p className="muted">The server sent no raw object.</p>
          )}
        </>
      )}
    </>
  );
}
