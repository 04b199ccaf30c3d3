/**
 * One finding group (#24) with its findings and, for editors, its status (open, closed, ignored;
 * PUT .../status). Viewers see the status without the control.
 */
import { useState } from 'react';
import { api } from '../api/client.js';
import { FINDING_GROUP_STATUSES, type Finding, type FindingGroup } from '../api/types.js';
import { type Column, DataTable } from '../components/data-table.js';
import { ErrorMessage } from '../components/error-message.js';
import { Fields } from '../components/fields.js';
import { useSubmit } from '../components/form-status.js';
import { PageHeader } from '../components/page-header.js';
import { SeverityBadge } from '../components/severity.js';
import { Empty, Loading, Notice } from '../components/status.js';
import { Time } from '../components/time.js';
import { useConsole } from '../context.js';
import { useApi } from '../hooks/use-api.js';
import { allows, useRole } from '../hooks/use-role.js';
import { accountPath } from '../paths.js';
import { Link } from '../router.js';
import type { ViewProps } from '../routes.js';

const FINDINGS_SHOWN = 100;

const findingColumns: Column<Finding>[] = [
  { key: 'severity', label: 'Severity', render: (f) => <SeverityBadge value={f.severity} /> },
  {
    key: 'messages',
    label: 'What',
    render: (f) => (
      <ul className="plain-list">
        {f.messages.map((message) => (
          <li key={message}>{message}</li>
        ))}
      </ul>
    ),
  },
  { key: 'source', label: 'Object', render: (f) => `${f.source_kind} ${f.source_name}` },
  { key: 'seen', label: 'Seen', render: (f) => <Time value={f.event_timestamp || f.updated_at} /> },
  { key: 'state', label: 'State', render: (f) => (f.deleted_at ? 'fixed' : 'present') },
];

function StatusChange({ path, status, onChanged }: { path: string; status: string; onChanged: () => void }) {
  const [next, setNext] = useState(status);
  const submit = useSubmit();
  async function save() {
    const saved = await submit.run(async () => {
      await api<unknown>('PUT', `${path}/status`, { body: { status: next } });
      return true;
    }, `Status set to ${next}.`);
    if (saved) onChanged();
  }
  return (
    <div className="inline-form">
      <label htmlFor="group-status">Status</label>
      <select id="group-status" value={next} onChange={(e) => setNext(e.target.value)}>
        {FINDING_GROUP_STATUSES.map((s) => (
          <option key={s} value={s}>
            {s}
          </option>
        ))}
      </select>
      <button
        type="button"
        className="button button-primary"
        disabled={submit.busy || next === status}
        onClick={() => void save()}
      >
        Change status
      </button>
      {submit.error && <ErrorMessage error={submit.error} title="Status not changed" />}
      {submit.done && <Notice kind="success">{submit.done}</Notice>}
    </div>
  );
}

export default function FindingGroupView({ account, params }: ViewProps) {
  const { offers } = useConsole();
  const role = useRole(account);
  const path = accountPath(account, `/unified_findings/groups/${encodeURIComponent(params.groupId ?? '')}`);
  const {
    data: group,
    error,
    loading,
    reload,
  } = useApi<FindingGroup>(path, { limit: String(FINDINGS_SHOWN) });
  const canChange =
    offers('PUT /accounts/{account_id}/unified_findings/groups/{group_id}/status') && allows(role, 'editor');

  return (
    <>
      <PageHeader title={group ? group.rule_title : 'Finding group'}>
        <Link to={accountPath(account, '/findings')}>All findings</Link>
      </PageHeader>
      {error && <ErrorMessage error={error} />}
      {loading && <Loading what="Loading the finding group" />}
      {group && (
        <>
          <Fields
            items={[
              ['Severity', <SeverityBadge key="s" value={group.severity} />],
              ['Status', group.status],
              [
                'Status set',
                <span key="c">
                  <Time value={group.status_changed_at} />{' '}
                  {group.status_changed_by ? (
                    <>
                      by user <code>{group.status_changed_by}</code>
                    </>
                  ) : (
                    'by the evaluation'
                  )}
                </span>,
              ],
              [
                'Object',
                `${group.source_kind} ${group.source_namespace ? `${group.source_namespace}/` : ''}${group.source_name}`,
              ],
              ['Type', group.type],
              ['Rule', <code key="r">{group.rule_id}</code>],
              ['First seen', <Time key="f" value={group.first_seen} />],
              ['Last seen', <Time key="l" value={group.last_seen} />],
            ]}
          />
          {canChange ? (
            <StatusChange path={path} status={group.status} onChanged={reload} />
          ) : (
            <p className="hint">Changing the status needs the editor role.</p>
          )}
          <section aria-labelledby="findings-title">
            <h2 id="findings-title">Findings</h2>
            {(group.findings ?? []).length === 0 ? (
              <Empty>No finding in this group.</Empty>
            ) : (
              <DataTable
                caption="Findings"
                columns={findingColumns}
                rows={group.findings ?? []}
                rowKey={(f) => f.id}
              />
            )}
          </section>
        </>
      )}
    </>
  );
}
