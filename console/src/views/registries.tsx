/** Container image registries of the account; an editor can add one. */
import { type FormEvent, useState } from 'react';
import { api } from '../api/client.js';
import type { Registry } from '../api/types.js';
import { type Column, DataTable } from '../components/data-table.js';
import { ErrorMessage } from '../components/error-message.js';
import { useSubmit } from '../components/form-status.js';
import { PageHeader } from '../components/page-header.js';
import { Empty, Loading, Notice } from '../components/status.js';
import { Time } from '../components/time.js';
import { useApi } from '../hooks/use-api.js';
import { accountPath } from '../paths.js';
import type { ViewProps } from '../routes.js';

type RegistryType = Registry['type'];

/** The fields each registry type takes (POST /accounts/{id}/registries). */
const FIELDS: Record<
  RegistryType,
  { name: keyof Registry; label: string; required: boolean; placeholder: string }[]
> = {
  generic: [
    {
      name: 'repository_name',
      label: 'Registry address',
      required: true,
      placeholder: 'registry.example.com:5000/team',
    },
  ],
  cloudA: [
    { name: 'repository_name', label: 'Repository', required: true, placeholder: 'shop/api' },
    {
      name: 'cloudA_account_id',
      label: 'Account id (12 digits)',
      required: true,
      placeholder: '123456789012',
    },
    { name: 'cloudA_region', label: 'Region', required: true, placeholder: 'eu-west-1' },
  ],
  cloudB: [
    { name: 'repository_name', label: 'Repository', required: true, placeholder: 'shop' },
    { name: 'cloudB_project_id', label: 'Project id', required: true, placeholder: 'my-project' },
    { name: 'cloudB_location', label: 'Location', required: true, placeholder: 'europe-west1' },
    { name: 'cloudB_project_number', label: 'Project number', required: false, placeholder: 'optional' },
  ],
};

function location(registry: Registry): string {
  if (registry.type === 'cloudA')
    return `${registry.cloudA_account_id ?? ''} · ${registry.cloudA_region ?? ''}`;
  if (registry.type === 'cloudB')
    return `${registry.cloudB_project_id ?? ''} · ${registry.cloudB_location ?? ''}`;
  return '—';
}

const columns: Column<Registry>[] = [
  { key: 'name', label: 'Repository', render: (r) => <code>{r.repository_name}</code> },
  { key: 'type', label: 'Type', render: (r) => r.type },
  { key: 'where', label: 'Account / project', render: location },
  { key: 'created', label: 'Added', render: (r) => <Time value={r.created_at} /> },
];

export default function RegistriesView({ account }: ViewProps) {
  const path = accountPath(account, '/registries');
  const { data, error, loading, reload } = useApi<Registry[]>(path);
  const [adding, setAdding] = useState(false);
  return (
    <>
      <PageHeader
        title="Registries"
        actions={
          <button
            type="button"
            className="button"
            aria-expanded={adding}
            onClick={() => setAdding((v) => !v)}
          >
            Add a registry
          </button>
        }
      >
        Registries the images of {account.name} come from.
      </PageHeader>
      {adding && <AddRegistry path={path} onAdded={reload} />}
      {error && <ErrorMessage error={error} />}
      {loading && <Loading what="Loading registries" />}
      {data && data.length === 0 && <Empty>No registry is configured for this account.</Empty>}
      {data && data.length > 0 && (
        <DataTable caption="Registries" columns={columns} rows={data} rowKey={(r) => r.id} />
      )}
    </>
  );
}

function AddRegistry({ path, onAdded }: { path: string; onAdded: () => void }) {
  const [type, setType] = useState<RegistryType>('generic');
  const submit = useSubmit();
  async function add(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = event.currentTarget;
    const data = new FormData(form);
    const body: Record<string, string> = { type };
    for (const field of FIELDS[type]) {
      const value = String(data.get(field.name) ?? '').trim();
      if (value) body[field.name] = value;
    }
    const created = await submit.run(() => api<Registry>('POST', path, { body }), 'Registry added.');
    if (created) {
      form.reset();
      onAdded();
    }
  }
  return (
    <form className="card form-grid" onSubmit={add} aria-label="Add a registry">
      <div className="form-row">
        <label htmlFor="registry-type">Type</label>
        <select
          id="registry-type"
          value={type}
          onChange={(event) => setType(event.target.value as RegistryType)}
        >
          <option value="generic">Generic (any registry address)</option>
          <option value="cloudA">Cloud A</option>
          <option value="cloudB">Cloud B</option>
        </select>
      </div>
      {FIELDS[type].map((field) => (
        <div key={`${type}-${field.name}`} className="form-row">
          <label htmlFor={`registry-${field.name}`}>{field.label}</label>
          <input
            id={`registry-${field.name}`}
            name={field.name}
            required={field.required}
            maxLength={256}
            placeholder={field.placeholder}
          />
        </div>
      ))}
      <div className="form-actions">
        <button type="submit" className="button button-primary" disabled={submit.busy}>
          Add
        </button>
      </div>
      {submit.error && <ErrorMessage error={submit.error} title="Not added" />}
      {submit.done && <Notice kind="success">{submit.done}</Notice>}
    </form>
  );
}
