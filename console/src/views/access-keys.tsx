/**
 * The tenant's access-key settings: the keys the signed-in admin administers, creating one (its
 * secret is shown here once, never again) and revoking one after a confirmation.
 */
import { type FormEvent, useEffect, useState } from 'react';
import { api } from '../api/client.js';
import type { AccessKey, CreatedAccessKey, OffsetList } from '../api/types.js';
import { type Column, DataTable } from '../components/data-table.js';
import { Dialog } from '../components/dialog.js';
import { ErrorMessage } from '../components/error-message.js';
import { useSubmit } from '../components/form-status.js';
import { NewSecret } from '../components/new-secret.js';
import { PageHeader } from '../components/page-header.js';
import { OffsetPager } from '../components/pager.js';
import { Empty, Loading } from '../components/status.js';
import { Time } from '../components/time.js';
import { useConsole } from '../context.js';
import { useApi } from '../hooks/use-api.js';
import { intParam, useUrlQuery } from '../hooks/use-url-query.js';
import type { ViewProps } from '../routes.js';

function keyState(key: AccessKey): 'revoked' | 'expired' | 'active' {
  if (key.revoked_at) return 'revoked';
  if (key.expires_at && new Date(key.expires_at).getTime() <= Date.now()) return 'expired';
  return 'active';
}

export default function AccessKeysView({ account }: ViewProps) {
  const { accounts } = useConsole();
  const [query, setQuery] = useUrlQuery();
  const limit = intParam(query.limit, 100);
  const offset = intParam(query.offset, 0, 0, Number.MAX_SAFE_INTEGER);
  const { data, error, loading, reload } = useApi<OffsetList<AccessKey>>('/accounts/access_keys', {
    limit,
    offset,
  });
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<CreatedAccessKey | null>(null);
  const [revoking, setRevoking] = useState<AccessKey | null>(null);
  const accountName = (id: string | null) => accounts.find((a) => a.id === id)?.name ?? id ?? '';

  const columns: Column<AccessKey>[] = [
    { key: 'name', label: 'Name', render: (k) => k.name },
    { key: 'id', label: 'Access key id', render: (k) => <code className="id">{k.id}</code> },
    {
      key: 'scope',
      label: 'Scope',
      render: (k) => (k.scope === 'tenant' ? 'Whole tenant' : `Account ${accountName(k.account_id)}`),
    },
    { key: 'created', label: 'Created', render: (k) => <Time value={k.created_at} /> },
    { key: 'used', label: 'Last used', render: (k) => <Time value={k.last_used_at} empty="never" /> },
    { key: 'expires', label: 'Expires', render: (k) => <Time value={k.expires_at} empty="never" /> },
    {
      key: 'state',
      label: 'State',
      render: (k) => <span className={`badge badge-${keyState(k)}`}>{keyState(k)}</span>,
    },
    {
      key: 'actions',
      label: 'Actions',
      render: (k) =>
        keyState(k) === 'revoked' ? (
          <Time value={k.revoked_at} />
        ) : (
          <button
            type="button"
            className="button button-small button-danger"
            onClick={() => setRevoking(k)}
            aria-label={`Revoke ${k.name} (${k.id})`}
          >
            Revoke
          </button>
        ),
    },
  ];

  return (
    <>
      <PageHeader
        title="Access keys"
        actions={
          <button
            type="button"
            className="button"
            aria-expanded={creating}
            onClick={() => {
              setCreating((open) => !open);
              setCreated(null);
            }}
          >
            Create a key
          </button>
        }
      >
        Keys for scripts, agents and this console. A key acts with its user's roles, narrowed to its scope.
      </PageHeader>
      {created && (
        <NewSecret
          created={created}
          onDone={() => {
            setCreated(null);
            setCreating(false);
          }}
        />
      )}
      {creating && !created && (
        <CreateKey
          defaultAccountId={account.id}
          onCreated={(key) => {
            setCreated(key);
            reload();
          }}
        />
      )}
      {error && <ErrorMessage error={error} />}
      {loading && <Loading what="Loading access keys" />}
      {data && data.entries.length === 0 && <Empty>You administer no access key.</Empty>}
      {data && data.entries.length > 0 && (
        <>
          <DataTable caption="Access keys" columns={columns} rows={data.entries} rowKey={(k) => k.id} />
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
      <RevokeDialog
        accessKey={revoking}
        onClose={() => setRevoking(null)}
        onRevoked={() => {
          setRevoking(null);
          reload();
        }}
      />
    </>
  );
}

function CreateKey({
  defaultAccountId,
  onCreated,
}: {
  defaultAccountId: string;
  onCreated: (key: CreatedAccessKey) => void;
}) {
  const { accounts } = useConsole();
  const [scope, setScope] = useState<'tenant' | 'account'>('account');
  const submit = useSubmit();

  async function create(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    const expiry = String(data.get('expires_on') ?? '');
    const body = {
      name: String(data.get('name') ?? '').trim(),
      scope,
      ...(scope === 'account' ? { account_id: String(data.get('account_id') ?? '') } : {}),
      // The key works through the whole chosen day, in the reader's time zone.
      ...(expiry ? { expires_at: new Date(`${expiry}T23:59:59`).toISOString() } : {}),
    };
    const key = await submit.run(() => api<CreatedAccessKey>('POST', '/accounts/access_keys', { body }));
    if (key) onCreated(key);
  }

  return (
    <form className="card form-grid" onSubmit={create} aria-labelledby="create-key-title">
      <h2 id="create-key-title">Create a key</h2>
      <div className="form-row">
        <label htmlFor="key-name">Name</label>
        <input id="key-name" name="name" required maxLength={200} placeholder="ci-pipeline" />
      </div>
      <fieldset className="form-row">
        <legend>Scope</legend>
        <label className="inline-choice">
          <input
            type="radio"
            name="scope"
            value="account"
            checked={scope === 'account'}
            onChange={() => setScope('account')}
          />{' '}
          One account
        </label>
        <label className="inline-choice">
          <input
            type="radio"
            name="scope"
            value="tenant"
            checked={scope === 'tenant'}
            onChange={() => setScope('tenant')}
          />{' '}
          Whole tenant
        </label>
      </fieldset>
      {scope === 'account' && (
        <div className="form-row">
          <label htmlFor="key-account">Account</label>
          <select id="key-account" name="account_id" defaultValue={defaultAccountId}>
            {accounts.map((a) => (
              <option key={a.id} value={a.id}>
                {a.name}
              </option>
            ))}
          </select>
        </div>
      )}
      <div className="form-row">
        <label htmlFor="key-expiry">Expires after (optional)</label>
        <input id="key-expiry" name="expires_on" type="date" />
      </div>
      <div className="form-actions">
        <button type="submit" className="button button-primary" disabled={submit.busy}>
          Create key
        </button>
      </div>
      {submit.error && <ErrorMessage error={submit.error} title="Key not created" />}
    </form>
  );
}

function RevokeDialog({
  accessKey,
  onClose,
  onRevoked,
}: {
  accessKey: AccessKey | null;
  onClose: () => void;
  onRevoked: () => void;
}) {
  const submit = useSubmit();
  const { reset } = submit;
  // biome-ignore lint/correctness/useExhaustiveDependencies: a new key to revoke starts without the last error
  useEffect(() => reset(), [accessKey?.id]);
  async function revoke() {
    if (!accessKey) return;
    const id = encodeURIComponent(accessKey.id);
    const ok = await submit.run(async () => {
      await api<void>('PUT', `/accounts/access_keys/${id}/revoke`);
      return true;
    });
    if (ok) onRevoked();
  }
  return (
    <Dialog title="Revoke this access key?" open={accessKey !== null} onClose={onClose}>
      {accessKey && (
        <>
          <p>
            <strong>{accessKey.name}</strong> (<code>{accessKey.id}</code>) will stop working at once, and
            every session opened with it ends. This cannot be undone.
          </p>
          {submit.error && <ErrorMessage error={submit.error} title="Not revoked" />}
          <div className="dialog-actions">
            <button type="button" className="button" onClick={onClose}>
              Cancel
            </button>
            <button
              type="button"
              className="button button-danger"
              onClick={() => void revoke()}
              disabled={submit.busy}
            >
              Revoke key
            </button>
          </div>
        </>
      )}
    </Dialog>
  );
}
