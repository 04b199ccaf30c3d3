/**
 * Edits one user's whole role set (PUT /accounts/{id}/users/{user_id}/roles replaces it). It starts
 * from the user's full set as the API reports it, not just the roles on this account, so saving
 * never drops a role by accident. The server applies its rules (only roles the caller could grant;
 * the tenant keeps an admin) and its refusals are shown as they come.
 */
import { useState } from 'react';
import { api } from '../api/client.js';
import type { Account, RoleAssignment } from '../api/types.js';
import { useApi } from '../hooks/use-api.js';
import { ErrorMessage } from './error-message.js';
import { useSubmit } from './form-status.js';
import { Loading } from './status.js';

type Level = RoleAssignment['level'];
type RoleName = RoleAssignment['name'];

interface Row {
  key: number;
  level: Level;
  accountId: string;
  name: RoleName;
}

let nextKey = 1;
const toRow = (role: RoleAssignment): Row => ({
  key: nextKey++,
  level: role.level,
  accountId: role.account_id,
  name: role.name,
});

export function RoleEditor({
  account,
  accounts,
  userId,
  userName,
  onSaved,
  onCancel,
}: {
  account: Account;
  accounts: Account[];
  userId: string;
  userName: string;
  onSaved: () => void;
  onCancel: () => void;
}) {
  const path = `/accounts/${encodeURIComponent(account.id)}/users/${encodeURIComponent(userId)}/roles`;
  const current = useApi<{ roles: RoleAssignment[] }>(path);
  if (current.error) return <ErrorMessage error={current.error} title="The roles could not be loaded" />;
  if (!current.data) return <Loading what="Loading roles" />;
  return (
    <RoleRows
      path={path}
      initial={current.data.roles.map(toRow)}
      account={account}
      accounts={accounts}
      userName={userName}
      onSaved={onSaved}
      onCancel={onCancel}
    />
  );
}

function RoleRows({
  path,
  initial,
  account,
  accounts,
  userName,
  onSaved,
  onCancel,
}: {
  path: string;
  initial: Row[];
  account: Account;
  accounts: Account[];
  userName: string;
  onSaved: () => void;
  onCancel: () => void;
}) {
  const [rows, setRows] = useState<Row[]>(initial);
  const submit = useSubmit();
  const update = (key: number, patch: Partial<Row>) =>
    setRows((all) => all.map((row) => (row.key === key ? { ...row, ...patch } : row)));

  async function save() {
    const roles = rows.map((row) =>
      row.level === 'tenant'
        ? { level: row.level, name: row.name }
        : { level: row.level, account_id: row.accountId, name: row.name },
    );
    const saved = await submit.run(async () => {
      await api<unknown>('PUT', path, { body: { roles } });
      return true;
    });
    if (saved) onSaved();
  }

  return (
    <div className="role-editor">
      <p>
        The whole role set of <strong>{userName}</strong>. Roles you remove here are taken away; a
        tenant-level role covers every account.
      </p>
      {rows.length === 0 && <p className="empty">No role: this user can see nothing.</p>}
      <ul className="role-rows">
        {rows.map((row, index) => (
          <li key={row.key} className="role-row">
            <label htmlFor={`role-${row.key}-level`} className="visually-hidden">
              Level of role {index + 1}
            </label>
            <select
              id={`role-${row.key}-level`}
              value={row.level}
              onChange={(e) => update(row.key, { level: e.target.value as Level, accountId: account.id })}
            >
              <option value="tenant">Whole tenant</option>
              <option value="account">Account</option>
            </select>
            {row.level === 'account' && (
              <>
                <label htmlFor={`role-${row.key}-account`} className="visually-hidden">
                  Account of role {index + 1}
                </label>
                <select
                  id={`role-${row.key}-account`}
                  value={row.accountId}
                  onChange={(e) => update(row.key, { accountId: e.target.value })}
                >
                  {!accounts.some((a) => a.id === row.accountId) && (
                    <option value={row.accountId}>{row.accountId}</option>
                  )}
                  {accounts.map((a) => (
                    <option key={a.id} value={a.id}>
                      {a.name}
                    </option>
                  ))}
                </select>
              </>
            )}
            <label htmlFor={`role-${row.key}-name`} className="visually-hidden">
              Role {index + 1}
            </label>
            <select
              id={`role-${row.key}-name`}
              value={row.name}
              onChange={(e) => update(row.key, { name: e.target.value as RoleName })}
            >
              <option value="viewer">viewer</option>
              <option value="editor">editor</option>
              <option value="admin">admin</option>
            </select>
            <button
              type="button"
              className="button button-small button-quiet"
              onClick={() => setRows((all) => all.filter((r) => r.key !== row.key))}
              aria-label={`Remove role ${index + 1}`}
            >
              Remove
            </button>
          </li>
        ))}
      </ul>
      <button
        type="button"
        className="button button-small"
        onClick={() =>
          setRows((all) => [
            ...all,
            { key: nextKey++, level: 'account', accountId: account.id, name: 'viewer' },
          ])
        }
      >
        Add a role
      </button>
      {submit.error && <ErrorMessage error={submit.error} title="Roles not changed" />}
      <div className="dialog-actions">
        <button type="button" className="button" onClick={onCancel}>
          Cancel
        </button>
        <button
          type="button"
          className="button button-primary"
          onClick={() => void save()}
          disabled={submit.busy}
        >
          Save roles
        </button>
      </div>
    </div>
  );
}
