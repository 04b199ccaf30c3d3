/**
 * Identities (service accounts, users, groups) with their risk level and score, riskiest first.
 * Each filter offers the values that occur in the account (GET .../identities/filters) and maps to
 * the #14 parameter of the same name; search, filters, sort and page live in the URL.
 */
import type { FormEvent } from 'react';
import type { Identity, IdentityFilterOptions, PageList } from '../api/types.js';
import { type Column, DataTable, formatSort, parseSort } from '../components/data-table.js';
import { ErrorMessage } from '../components/error-message.js';
import { PageHeader } from '../components/page-header.js';
import { PagePager } from '../components/pager.js';
import { SeverityBadge } from '../components/severity.js';
import { Empty, Loading } from '../components/status.js';
import { Time } from '../components/time.js';
import { useApi } from '../hooks/use-api.js';
import { intParam, type UrlQuery, useUrlQuery } from '../hooks/use-url-query.js';
import { IDENTITY_TYPE_LABELS as TYPE_LABELS } from '../labels.js';
import { accountPath, identityPath } from '../paths.js';
import { Link } from '../router.js';
import type { ViewProps } from '../routes.js';

const DEFAULT_SORT = { field: 'risk_score', direction: 'desc' } as const;

/** #14 parameter -> its #15 option list and label. */
const FILTERS: [param: string, options: keyof IdentityFilterOptions, label: string][] = [
  ['risk_levels', 'risk_levels', 'Risk level'],
  ['risks', 'risk_types', 'Risk'],
  ['identity_types', 'identity_types', 'Type'],
  ['statuses', 'statuses', 'Status'],
  ['usages', 'usages', 'Usage'],
  ['identity_sources', 'identity_sources', 'Cluster'],
];

export default function IdentitiesView({ account }: ViewProps) {
  const [query, setQuery] = useUrlQuery();
  const sort = parseSort(query.sort, DEFAULT_SORT);
  const page = intParam(query.page, 1, 1, Number.MAX_SAFE_INTEGER);
  const pageSize = intParam(query.page_size, 50);
  const options = useApi<IdentityFilterOptions>(accountPath(account, '/identities/filters'));
  const params = Object.fromEntries(FILTERS.map(([param]) => [param, query[param]]));
  const { data, error, loading } = useApi<PageList<Identity>>(accountPath(account, '/identities'), {
    ...params,
    q: query.q,
    sort: query.sort,
    page,
    page_size: pageSize,
  });

  function apply(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const patch: UrlQuery = { q: String(form.get('q') ?? '').trim() || undefined };
    for (const [param] of FILTERS) patch[param] = String(form.get(param) ?? '') || undefined;
    setQuery(patch);
  }

  const columns: Column<Identity>[] = [
    {
      key: 'name',
      label: 'Identity',
      sort: 'name',
      render: (i) => <Link to={identityPath(account, i.id)}>{i.name}</Link>,
    },
    {
      key: 'namespace',
      label: 'Namespace',
      sort: 'namespace',
      render: (i) => i.namespace || <span className="muted">—</span>,
    },
    { key: 'type', label: 'Type', sort: 'type', render: (i) => TYPE_LABELS[i.type] ?? i.type },
    { key: 'level', label: 'Risk level', render: (i) => <SeverityBadge value={i.risk_level} /> },
    { key: 'score', label: 'Score', sort: 'risk_score', className: 'numeric', render: (i) => i.risk_score },
    {
      key: 'risks',
      label: 'Open risks',
      render: (i) => {
        const open = i.risks.filter((r) => r.deleted_at === null);
        return open.length === 0 ? <span className="muted">none</span> : open.map((r) => r.name).join(', ');
      },
    },
    { key: 'status', label: 'Status', render: (i) => i.status },
    { key: 'cluster', label: 'Cluster', render: (i) => i.source_name },
    {
      key: 'used',
      label: 'Last used',
      sort: 'last_used_at',
      render: (i) => <Time value={i.last_used_at} empty={i.type === 'k8s_service_account' ? 'never' : '—'} />,
    },
  ];

  return (
    <>
      <PageHeader title="Identities">
        Who can do what in the clusters of {account.name}: service accounts, users and groups, riskiest first.
      </PageHeader>
      <form
        className="filters card"
        onSubmit={apply}
        aria-label="Identity filters"
        key={JSON.stringify(query)}
      >
        <div className="filter-field">
          <label htmlFor="id-q">Name or namespace</label>
          <input id="id-q" name="q" type="search" defaultValue={query.q ?? ''} />
        </div>
        {FILTERS.map(([param, optionsKey, label]) => {
          const values = options.data?.[optionsKey] ?? [];
          const current = query[param];
          return (
            <div key={param} className="filter-field">
              <label htmlFor={`id-${param}`}>{label}</label>
              <select id={`id-${param}`} name={param} defaultValue={current ?? ''}>
                <option value="">Any</option>
                {current && !values.some((v) => v.value === current) && (
                  <option value={current}>{current}</option>
                )}
                {values.map((v) => (
                  <option key={v.value} value={v.value}>
                    {v.label}
                  </option>
                ))}
              </select>
            </div>
          );
        })}
        <div className="filter-actions">
          <button type="submit" className="button button-primary">
            Apply
          </button>
          <Link to={accountPath(account, '/identities')} className="button button-quiet">
            Reset
          </Link>
        </div>
      </form>
      {options.error && <ErrorMessage error={options.error} title="The filter values could not be loaded" />}
      {error && <ErrorMessage error={error} />}
      {loading && <Loading what="Loading identities" />}
      {data && data.entries.length === 0 && <Empty>No identity matches these filters.</Empty>}
      {data && data.entries.length > 0 && (
        <>
          <DataTable
            caption="Identities"
            columns={columns}
            rows={data.entries}
            rowKey={(i) => i.id}
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
