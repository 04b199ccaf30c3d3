/**
 * The captured baseline of each workload container (#7): what it was learned from, and on demand
 * its process tree. Search, sort and page live in the URL.
 */
import { useState } from 'react';
import type { BaselineEntry, PageList } from '../api/types.js';
import { type Column, DataTable, formatSort, parseSort } from '../components/data-table.js';
import { ErrorMessage } from '../components/error-message.js';
import { PageHeader } from '../components/page-header.js';
import { PagePager } from '../components/pager.js';
import { ProcessTree } from '../components/process-tree.js';
import { SearchForm } from '../components/search-form.js';
import { Empty, Loading } from '../components/status.js';
import { Time } from '../components/time.js';
import { useApi } from '../hooks/use-api.js';
import { useClusters } from '../hooks/use-clusters.js';
import { intParam, useUrlQuery } from '../hooks/use-url-query.js';
import { accountPath } from '../paths.js';
import type { ViewProps } from '../routes.js';

const DEFAULT_SORT = { field: 'created_at', direction: 'desc' } as const;

export default function BaselinesView({ account }: ViewProps) {
  const [query, setQuery] = useUrlQuery();
  const { nameOf } = useClusters(account);
  const sort = parseSort(query.sort, DEFAULT_SORT);
  const page = intParam(query.page, 1, 1, Number.MAX_SAFE_INTEGER);
  const pageSize = intParam(query.page_size, 50);
  const [open, setOpen] = useState<BaselineEntry | null>(null);
  const { data, error, loading } = useApi<PageList<BaselineEntry>>(
    accountPath(account, '/container_runtime_latest_baseline_fingerprints'),
    { q: query.q, sort: query.sort, page, page_size: pageSize },
  );

  const columns: Column<BaselineEntry>[] = [
    {
      key: 'workload',
      label: 'Workload container',
      sort: 'workload_name',
      render: (b) => `${b.namespace}/${b.workload_name} · ${b.container_name}`,
    },
    { key: 'image', label: 'Image', sort: 'image_name', render: (b) => <code>{b.image_name}</code> },
    { key: 'notes', label: 'Learned from', render: (b) => b.notes },
    { key: 'cluster', label: 'Cluster', render: (b) => nameOf(b.cluster_id) },
    { key: 'created', label: 'Captured', sort: 'created_at', render: (b) => <Time value={b.created_at} /> },
    {
      key: 'tree',
      label: 'Processes',
      render: (b) => (
        <button
          type="button"
          className="button button-small"
          aria-pressed={open?.id === b.id}
          onClick={() => setOpen(open?.id === b.id ? null : b)}
        >
          {open?.id === b.id ? 'Hide' : 'Show'} processes of {b.workload_name}
        </button>
      ),
    },
  ];

  return (
    <>
      <PageHeader title="Baselines">
        What each workload container of {account.name} normally does, learned during its first window.
      </PageHeader>
      <SearchForm
        value={query.q}
        onSearch={(q) => setQuery({ q })}
        label="Search"
        hint="Matches image, namespace, workload, container or notes."
      />
      {error && <ErrorMessage error={error} />}
      {loading && <Loading what="Loading baselines" />}
      {data && data.entries.length === 0 && <Empty>No baseline has been captured yet.</Empty>}
      {data && data.entries.length > 0 && (
        <>
          <DataTable
            caption="Baselines"
            columns={columns}
            rows={data.entries}
            rowKey={(b) => b.id}
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
      {open && (
        <section className="card" aria-labelledby="baseline-tree-title">
          <h2 id="baseline-tree-title">
            Baseline of {open.namespace}/{open.workload_name} · {open.container_name}
          </h2>
          <ProcessTree fingerprint={open.fingerprint} label="Baseline process tree" />
        </section>
      )}
    </>
  );
}
