/**
 * The tenant's integrations: the provider catalogue (GET /tenants/{tenant_id}/integrations/providers)
 * with each provider's configured instances, and the configured integrations themselves
 * (.../external). A tenant admin adds one from a provider's config schema and deletes one after a
 * confirmation, when the server offers those operations. Secret values come back redacted by the
 * server; the form never shows one it did not type.
 */
import { useState } from 'react';
import { api } from '../api/client.js';
import type { ConfiguredIntegration, IntegrationProvider, TenantOffsetList } from '../api/types.js';
import { type Column, DataTable } from '../components/data-table.js';
import { Dialog } from '../components/dialog.js';
import { ErrorMessage } from '../components/error-message.js';
import { useSubmit } from '../components/form-status.js';
import { AddIntegration } from '../components/integration-form.js';
import { PageHeader } from '../components/page-header.js';
import { Empty, Loading } from '../components/status.js';
import { useConsole } from '../context.js';
import { useApi } from '../hooks/use-api.js';
import { allows, useRole } from '../hooks/use-role.js';
import type { ViewProps } from '../routes.js';

const CREATE = 'POST /tenants/{tenant_id}/integrations/external';
const DELETE = 'DELETE /tenants/{tenant_id}/integrations/external/{integration_id}';

function configSummary(config: Record<string, unknown>): string {
  return Object.entries(config)
    .map(([key, value]) => `${key}: ${typeof value === 'string' ? value : JSON.stringify(value)}`)
    .join(' · ');
}

export default function IntegrationsView({ account }: ViewProps) {
  const { offers } = useConsole();
  // Only tenant admins manage integrations; an unknown role keeps the controls (the server decides).
  const isAdmin = allows(useRole(account), 'admin');
  const canCreate = isAdmin && offers(CREATE);
  const base = `/tenants/${encodeURIComponent(account.parent_id)}/integrations`;
  const providers = useApi<TenantOffsetList<IntegrationProvider>>(`${base}/providers`, { limit: 1000 });
  const external = useApi<TenantOffsetList<ConfiguredIntegration>>(`${base}/external`, { limit: 1000 });
  const [adding, setAdding] = useState(false);
  const [deleting, setDeleting] = useState<ConfiguredIntegration | null>(null);
  const nameOfType = (type: string) => providers.data?.entries.find((p) => p.type === type)?.name ?? type;

  const providerColumns: Column<IntegrationProvider>[] = [
    { key: 'name', label: 'Provider', render: (p) => p.name },
    { key: 'type', label: 'Type', render: (p) => <code>{p.type}</code> },
    { key: 'categories', label: 'Categories', render: (p) => p.categories.join(', ') },
    { key: 'auth', label: 'Authentication', render: (p) => p.auth_method },
    { key: 'configured', label: 'Configured', className: 'numeric', render: (p) => p.configured.length },
  ];
  const externalColumns: Column<ConfiguredIntegration>[] = [
    { key: 'name', label: 'Name', render: (i) => i.name },
    { key: 'type', label: 'Provider', render: (i) => nameOfType(i.type) },
    {
      key: 'config',
      label: 'Settings',
      render: (i) => <span className="cell-note">{configSummary(i.config)}</span>,
    },
  ];
  if (isAdmin && offers(DELETE)) {
    externalColumns.push({
      key: 'delete',
      label: 'Delete',
      render: (i) => (
        <button type="button" className="button button-small button-danger" onClick={() => setDeleting(i)}>
          Delete {i.name}
        </button>
      ),
    });
  }

  return (
    <>
      <PageHeader
        title="Integrations"
        actions={
          canCreate && (
            <button
              type="button"
              className="button"
              aria-expanded={adding}
              onClick={() => setAdding((v) => !v)}
            >
              Add an integration
            </button>
          )
        }
      >
        Where the tenant's findings go: ticketing, SIEM, chat and other products.
      </PageHeader>
      {adding && providers.data && (
        <AddIntegration
          base={base}
          providers={providers.data.entries}
          onAdded={() => {
            external.reload();
            providers.reload();
          }}
        />
      )}
      <section aria-labelledby="configured-title">
        <h2 id="configured-title">Configured</h2>
        {external.error && <ErrorMessage error={external.error} />}
        {external.loading && <Loading what="Loading integrations" />}
        {external.data && external.data.entries.length === 0 && <Empty>No integration is configured.</Empty>}
        {external.data && external.data.entries.length > 0 && (
          <DataTable
            caption="Configured integrations"
            columns={externalColumns}
            rows={external.data.entries}
            rowKey={(i) => i.id}
          />
        )}
      </section>
      <section aria-labelledby="providers-title">
        <h2 id="providers-title">Providers</h2>
        {providers.error && <ErrorMessage error={providers.error} />}
        {providers.loading && <Loading what="Loading providers" />}
        {providers.data && (
          <DataTable
            caption="Providers"
            columns={providerColumns}
            rows={providers.data.entries}
            rowKey={(p) => p.type}
          />
        )}
      </section>
      <DeleteDialog
        base={base}
        integration={deleting}
        onClose={() => setDeleting(null)}
        onDeleted={() => {
          setDeleting(null);
          external.reload();
          providers.reload();
        }}
      />
    </>
  );
}

function DeleteDialog({
  base,
  integration,
  onClose,
  onDeleted,
}: {
  base: string;
  integration: ConfiguredIntegration | null;
  onClose: () => void;
  onDeleted: () => void;
}) {
  const submit = useSubmit();
  async function remove() {
    if (!integration) return;
    const done = await submit.run(async () => {
      await api<unknown>('DELETE', `${base}/external/${encodeURIComponent(integration.id)}`);
      return true;
    });
    if (done) onDeleted();
  }
  return (
    <Dialog title="Delete this integration?" open={integration !== null} onClose={onClose}>
      <p>
        Findings stop going to <strong>{integration?.name}</strong>. Its settings, secrets included, are
        deleted.
      </p>
      {submit.error && <ErrorMessage error={submit.error} title="Not deleted" />}
      <div className="dialog-actions">
        <button type="button" className="button" onClick={onClose}>
          Cancel
        </button>
        <button
          type="button"
          className="button button-danger"
          onClick={() => void remove()}
          disabled={submit.busy}
        >
          Delete integration
        </button>
      </div>
    </Dialog>
  );
}
