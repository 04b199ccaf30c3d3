/**
 * Finding groups: one per rule and source object, with severity, status and when it was first and
 * last seen. The API answers a bare array (no paging envelope) up to `limit`; type, severity,
 * status and the other filter keys go into its `filters`, the last-seen window into `from`/`to`,
 * all in the URL.
 */
import type { FormEvent } from 'react';
import { FINDING_GROUP_STATUSES, type FindingGroup } from '../api/types.js';
import { type Column, DataTable } from '../components/data-table.js';
import { ErrorMessage } from '../components/error-message.js';
import { FilterBar } from '../components/filter-bar.js';
import { PageHeader } from '../components/page-header.js';
import { SEVERITIES, SeverityBadge } from '../components/severity.js';
import { Empty, Loading } from '../components/status.js';
import { Time } from '../components/time.js';
import { useApi } from '../hooks/use-api.js';
import { intParam, useUrlQuery } from '../hooks/use-url-query.js';
import { accountPath, findingGroupPath } from '../paths.js';
import { Link } from '../router.js';
import type { ViewProps } from '../routes.js';

/** The filter keys of GET unified_findings/groups (issue 7). */
const FILTER_KEYS = [
  'severity',
  'status',
  'type',
  'rule_id',
  'source_kind',
  'source_type',
  'source_namespace',
] as const;
const LIMITS = [100, 500, 1000];

const source = (g: FindingGroup) =>
  `${g.source_kind} ${g.source_namespace ? `${g.source_namespace}/` : ''}${g.source_name}`;

export default function FindingGroupsView({ account }: ViewProps) {
  const [query, setQuery] = useUrlQuery();
  const limit = intParam(query.limit, 100);
  const { data, error, loading } = useApi<FindingGroup[]>(accountPath(account, '/unified_findings/groups'), {
    filters: query.filters,
    from: query.from,
    to: query.to,
    limit,
  });

  function applyWindow(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setQuery({
      from: String(form.get('from') ?? '').trim() || undefined,
      to: String(form.get('to') ?? '').trim() || undefined,
      limit: String(form.get('limit') ?? '') || undefined,
    });
  }

  const columns: Column<FindingGroup>[] = [
    { key: 'severity', label: 'Severity', render: (g) => <SeverityBadge value={g.severity} /> },
    {
      key: 'rule',
      label: 'Finding',
      render: (g) => <Link to={findingGroupPath(account, g.id)}>{g.rule_title}</Link>,
    },
    { key: 'source', label: 'Source', render: source },
    { key: 'type', label: 'Type', render: (g) => g.type },
    {
      key: 'status',
      label: 'Status',
      render: (g) => <span className={`badge badge-${g.status}`}>{g.status}</span>,
    },
    { key: 'first', label: 'First seen', render: (g) => <Time value={g.first_seen} /> },
    { key: 'last', label: 'Last seen', render: (g) => <Time value={g.last_seen} /> },
  ];

  return (
    <>
      <PageHeader title="Findings">
        What Posture found in {account.name}, grouped by rule and object.
      </PageHeader>
      <div className="card">
        <FilterBar
          keys={FILTER_KEYS}
          values={{ severity: SEVERITIES, status: FINDING_GROUP_STATUSES }}
          value={query.filters}
          onChange={(filters) => setQuery({ filters })}
        />
        <form
          className="inline-form"
          onSubmit={applyWindow}
          aria-label="Last seen"
          key={JSON.stringify(query)}
        >
          <label htmlFor="fg-from">Last seen from</label>
          <input id="fg-from" name="from" defaultValue={query.from ?? ''} placeholder="now-7d" />
          <label htmlFor="fg-to">to</label>
          <input id="fg-to" name="to" defaultValue={query.to ?? ''} placeholder="now" />
          <label htmlFor="fg-limit">At most</label>
          <select id="fg-limit" name="limit" defaultValue={String(limit)}>
            {(LIMITS.includes(limit) ? LIMITS : [...LIMITS, limit]).map((n) => (
              <option key={n} value={n}>
                {n}
              </option>
            ))}
          </select>
          <button type="submit" className="button">
            Apply
          </button>
        </form>
      </div>
      {error && <ErrorMessage error={error} />}
      {loading && <Loading what="Loading findings" />}
      {data && data.length === 0 && <Empty>No finding group matches.</Empty>}
      {data && data.length > 0 && (
        <>
          <DataTable caption="Finding groups" columns={columns} rows={data} rowKey={(g) => g.id} />
          <p className="pager-position">
            {data.length} {data.length === 1 ? 'group' : 'groups'}
            {data.length >= limit && ' (the limit: narrow the filters or raise it to see more)'}
          </p>
        </>
      )}
    </>
  );
}
