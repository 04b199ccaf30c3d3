/** Members of the account with their roles, locked state and last sign-in; an admin edits role sets. */
import { useState } from 'react';
import type { Member, OffsetList } from '../api/types.js';
import { type Column, DataTable } from '../components/data-table.js';
import { Dialog } from '../components/dialog.js';
import { ErrorMessage } from '../components/error-message.js';
import { PageHeader } from '../components/page-header.js';
import { OffsetPager } from '../components/pager.js';
import { RoleEditor } from '../components/role-editor.js';
import { Empty, Loading, Notice } from '../components/status.js';
import { Time } from '../components/time.js';
import { useConsole } from '../context.js';
import { useApi } from '../hooks/use-api.js';
import { intParam, useUrlQuery } from '../hooks/use-url-query.js';
import { accountPath } from '../paths.js';
import type { ViewProps } from '../routes.js';

export default function UsersView({ account }: ViewProps) {
  const { accounts, offers } = useConsole();
  const [query, setQuery] = useUrlQuery();
  const limit = intParam(query.limit, 100);
  const offset = intParam(query.offset, 0, 0, Number.MAX_SAFE_INTEGER);
  const { data, error, loading, reload } = useApi<OffsetList<Member>>(accountPath(account, '/users'), {
    limit,
    offset,
  });
  const [editing, setEditing] = useState<Member | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const canEdit = offers('PUT /accounts/{account_id}/users/{user_id}/roles');

  const columns: Column<Member>[] = [
    { key: 'name', label: 'User', render: (m) => m.name },
    { key: 'email', label: 'Email', render: (m) => m.email ?? <span className="muted">—</span> },
    {
      key: 'roles',
      label: 'Roles here',
      render: (m) =>
        m.roles.length === 0 ? (
          <span className="muted">none</span>
        ) : (
          <ul className="chips">
            {m.roles.map((r) => (
              <li key={`${r.level}:${r.account_id}:${r.name}`} className="chip">
                {r.name} <span className="muted">· {r.level === 'tenant' ? 'tenant' : r.account_name}</span>
              </li>
            ))}
          </ul>
        ),
    },
    {
      key: 'locked',
      label: 'Locked',
      render: (m) => (m.locked ? <span className="badge badge-revoked">locked</span> : 'no'),
    },
    { key: 'login', label: 'Last sign-in', render: (m) => <Time value={m.last_login_at} empty="never" /> },
    ...(canEdit
      ? [
          {
            key: 'edit',
            label: 'Actions',
            render: (m: Member) => (
              <button
                type="button"
                className="button button-small"
                onClick={() => setEditing(m)}
                aria-label={`Edit roles of ${m.name}`}
              >
                Edit roles
              </button>
            ),
          },
        ]
      : []),
  ];

  return (
    <>
      <PageHeader title="Users and roles">
        Everyone with a role on {account.name}, directly or tenant-wide.
      </PageHeader>
      {saved && <Notice kind="success">{saved}</Notice>}
      {error && <ErrorMessage error={error} />}
      {loading && <Loading what="Loading members" />}
      {data && data.entries.length === 0 && <Empty>No member has a role on this account.</Empty>}
      {data && data.entries.length > 0 && (
        <>
          <DataTable caption="Members" columns={columns} rows={data.entries} rowKey={(m) => m.id} />
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
      <Dialog
        title={editing ? `Roles of ${editing.name}` : 'Roles'}
        open={editing !== null}
        onClose={() => setEditing(null)}
      >
        {editing && (
          <RoleEditor
            account={account}
            accounts={accounts}
            userId={editing.id}
            userName={editing.name}
            onCancel={() => setEditing(null)}
            onSaved={() => {
              setSaved(`Roles of ${editing.name} saved.`);
              setEditing(null);
              reload();
            }}
          />
        )}
      </Dialog>
    </>
  );
}
