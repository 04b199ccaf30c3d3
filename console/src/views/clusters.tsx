/** The account's clusters: search by name, sort, page; an editor can register a new one. */
import { type FormEvent, useState } from 'react';
import { api } from '../api/client.js';
import type { Cluster, PageList } from '../api/types.js';
import { type Column, DataTable, formatSort, parseSort } from '../components/data-table.js';
import { ErrorMessage } from '../components/error-message.js';
import { useSubmit } from '../components/form-status.js';
import { PageHeader } from '../components/page-header.js';
import { PagePager } from '../components/pager.js';
import { SearchForm } from '../components/search-form.js';
import { Empty, Loading, Notice } from '../components/status.js';
import { Time } from '../components/time.js';
import { useApi } from '../hooks/use-api.js';
import { intParam, useUrlQuery } from '../hooks/use-url-query.js';
import { accountPath, clusterPath } from '../paths.js';
import { Link } from '../router.js';
import type { ViewProps } from '../routes.js';

const DEFAULT_SORT = { field: 'name', direction: 'asc' } as const;

export default function ClustersView({ account }: ViewProps) {
  const [query, setQuery] = useUrlQuery();
  const sort = parseSort(query.sort, DEFAULT_SORT);
  const page = intParam(query.page, 1, 1, Number.MAX_SAFE_INTEGER);
  const pageSize = intParam(query.page_size, 50);
  const { data, error, loading, reload } = useApi<PageList<Cluster>>(accountPath(account, '/clusters'), {
    q: query.q,
    sort: query.sort,
    page,
    page_size: pageSize,
  });
  const [registering, setRegistering] = useState(false);

  const columns: Column<Cluster>[] = [
    {
      key: 'name',
      label: 'Name',
      sort: 'name',
      render: (c) => <Link to={clusterPath(account, c.id)}>{c.name}</Link>,
    },
    { key: 'id', label: 'Id', render: (c) => <code className="id">{c.id}</code> },
    { key: 'created', label: 'Registered', sort: 'created_at', render: (c) => <Time value={c.created_at} /> },
    {
      key: 'ingested',
      label: 'Last report',
      sort: 'last_ingested_at',
      render: (c) => <Time value={c.last_ingested_at} empty="never" />,
    },
  ];

  return (
    <>
      <PageHeader
        title="Clusters"
        actions={
          <button
            type="button"
            className="button"
            aria-expanded={registering}
            onClick={() => setRegistering((v) => !v)}
          >
            Register a cluster
          </button>
        }
      >
        Clusters of <strong>{account.name}</strong> and when each last reported its objects.
      </PageHeader>
      {registering && <RegisterCluster accountPathPrefix={accountPath(account)} onRegistered={reload} />}
      <SearchForm value={query.q} onSearch={(q) => setQuery({ q })} label="Name contains" />
      {error && <ErrorMessage error={error} />}
      {loading && <Loading what="Loading clusters" />}
      {data && data.entries.length === 0 && (
        <Empty>
          {query.q ? 'No cluster matches this search.' : 'No cluster is registered in this account yet.'}
        </Empty>
      )}
      {data && data.entries.length > 0 && (
        <>
          <DataTable
            caption="Clusters"
            columns={columns}
            rows={data.entries}
            rowKey={(c) => c.id}
            sort={sort}
            onSort={(next) => setQuery({ sort: formatSort(next) })}
          />
          <PagePager
            page={data.page}
            pageCount={data.page_count}
            pageSize={data.page_size}
            total={data.total_count}
            onPage={(n) => setQuery({ page: String(n) }, { keepPaging: true })}
            onPageSize={(n) => setQuery({ page_size: String(n) })}
          />
        </>
      )}
    </>
  );
}

function RegisterCluster({
  accountPathPrefix,
  onRegistered,
}: {
  accountPathPrefix: string;
  onRegistered: () => void;
}) {
  const submit = useSubmit();
  async function register(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = event.currentTarget;
    const name = String(new FormData(form).get('name') ?? '').trim();
    const created = await submit.run(
      () => api<Cluster>('POST', `${accountPathPrefix}/clusters`, { body: { name } }),
      `Cluster ${name} registered.`,
    );
    if (created) {
      form.reset();
      onRegistered();
    }
  }
  return (
    <form className="card inline-form" onSubmit={register} aria-label="Register a cluster">
      <label htmlFor="cluster-name">Cluster name</label>
      <input id="cluster-name" name="name" required maxLength={100} placeholder="prod-eu-1" />
      <button type="submit" className="button button-primary" disabled={submit.busy}>
        Register
      </button>
      {submit.error && <ErrorMessage error={submit.error} title="Not registered" />}
      {submit.done && <Notice kind="success">{submit.done}</Notice>}
    </form>
  );
}
