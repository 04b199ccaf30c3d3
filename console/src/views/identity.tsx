/**
 * One identity: what it is, its risk level and score, its risks (open first, then resolved), the
 * access graph that gives them (identity -> bindings -> roles -> rules) and its effective
 * permissions per namespace.
 */
import type { Identity, IdentityRisk } from '../api/types.js';
import { type Column, DataTable } from '../components/data-table.js';
import { ErrorMessage } from '../components/error-message.js';
import { Fields } from '../components/fields.js';
import { PageHeader } from '../components/page-header.js';
import { RbacGraphView } from '../components/rbac-graph.js';
import { SeverityBadge } from '../components/severity.js';
import { Empty, Loading } from '../components/status.js';
import { Time } from '../components/time.js';
import { useApi } from '../hooks/use-api.js';
import { IDENTITY_TYPE_LABELS as TYPE_LABELS } from '../labels.js';
import { accountPath } from '../paths.js';
import { Link } from '../router.js';
import type { ViewProps } from '../routes.js';

const riskColumns: Column<IdentityRisk>[] = [
  { key: 'severity', label: 'Severity', render: (r) => <SeverityBadge value={r.severity} /> },
  {
    key: 'name',
    label: 'Risk',
    render: (r) => (
      <>
        <strong>{r.name}</strong>
        <p className="cell-note">{r.description}</p>
      </>
    ),
  },
  { key: 'scope', label: 'Scope', render: (r) => r.namespace || 'cluster-wide' },
  { key: 'score', label: 'Score', className: 'numeric', render: (r) => r.score },
  {
    key: 'through',
    label: 'Through',
    render: (r) => (
      <ul className="plain-list">
        {r.associated_resources.map((resource) => (
          <li key={resource.id}>
            <code>{resource.name}</code>
          </li>
        ))}
      </ul>
    ),
  },
  {
    key: 'state',
    label: 'State',
    render: (r) =>
      r.deleted_at ? (
        <span className="badge badge-replaced">resolved</span>
      ) : (
        <span className="badge badge-open">open</span>
      ),
  },
  { key: 'first', label: 'First detected', render: (r) => <Time value={r.first_detected_at} /> },
];

type Permission = Identity['rbac_objects']['permissions'][number];
const permissionColumns: Column<Permission>[] = [
  { key: 'scope', label: 'Where', render: (p) => p.namespace || 'cluster-wide' },
  { key: 'verbs', label: 'Verbs', render: (p) => <code>{p.verbs.join(', ')}</code> },
  {
    key: 'resources',
    label: 'Resources',
    render: (p) => (
      <code>
        {p.resources.join(', ')}
        {p.resource_names.length > 0 && ` (${p.resource_names.join(', ')})`}
      </code>
    ),
  },
  {
    key: 'groups',
    label: 'API groups',
    render: (p) => <code>{p.api_groups.map((g) => g || 'core').join(', ')}</code>,
  },
];

export default function IdentityView({ account, params }: ViewProps) {
  const identityId = params.identityId ?? '';
  const {
    data: identity,
    error,
    loading,
  } = useApi<Identity>(accountPath(account, `/identities/${encodeURIComponent(identityId)}`));

  return (
    <>
      <PageHeader
        title={identity ? `${TYPE_LABELS[identity.type] ?? identity.type} ${identity.name}` : 'Identity'}
      >
        <Link to={accountPath(account, '/identities')}>All identities</Link>
      </PageHeader>
      {error && <ErrorMessage error={error} />}
      {loading && <Loading what="Loading the identity" />}
      {identity && (
        <>
          <Fields
            items={[
              ['Risk level', <SeverityBadge key="l" value={identity.risk_level} />],
              ['Risk score', String(identity.risk_score)],
              ['Namespace', identity.namespace],
              ['Cluster', identity.source_name],
              [
                'Status',
                identity.resolved_reason
                  ? `${identity.status} (${identity.resolved_reason})`
                  : identity.status,
              ],
              ['First seen', <Time key="c" value={identity.created_at} />],
              ['Last used', <Time key="u" value={identity.last_used_at} empty="never" />],
              ['Id', <code key="id">{identity.id}</code>],
            ]}
          />
          <section aria-labelledby="risks-title">
            <h2 id="risks-title">Risks</h2>
            {identity.risks.length === 0 ? (
              <Empty>No risk was ever detected for this identity.</Empty>
            ) : (
              <DataTable caption="Risks" columns={riskColumns} rows={identity.risks} rowKey={(r) => r.id} />
            )}
          </section>
          <section aria-labelledby="graph-title" className="card">
            <h2 id="graph-title">Access graph</h2>
            <p className="hint">
              From the identity to the bindings that name it, the roles they grant and, when opened, each
              role's rules.
            </p>
            <RbacGraphView account={account} graph={identity.rbac_objects.graph} rootId={identity.id} />
          </section>
          <section aria-labelledby="perm-title">
            <h2 id="perm-title">Permissions</h2>
            {identity.rbac_objects.permissions.length === 0 ? (
              <Empty>No permission.</Empty>
            ) : (
              <DataTable
                caption="Permissions"
                columns={permissionColumns}
                rows={identity.rbac_objects.permissions}
                rowKey={(p) => `${p.namespace}|${p.api_groups}|${p.resources}|${p.resource_names}|${p.verbs}`}
              />
            )}
          </section>
        </>
      )}
    </>
  );
}
