/** The actions of one cluster (a page list, most recently created first). */
import type { ClusterAction, PageList } from '../api/types.js';
import { useApi } from '../hooks/use-api.js';
import { type Column, DataTable } from './data-table.js';
import { ErrorMessage } from './error-message.js';
import { PagePager } from './pager.js';
import { Empty, Loading } from './status.js';
import { Time } from './time.js';

const columns: Column<ClusterAction>[] = [
  { key: 'created', label: 'Requested', render: (a) => <Time value={a.created_at} /> },
  { key: 'type', label: 'Action', render: (a) => <code>{a.action_type}</code> },
  { key: 'target', label: 'Target pod', render: (a) => `${a.target_namespace}/${a.target_pod_name}` },
  { key: 'status', label: 'Status', render: (a) => <span className="badge">{a.status}</span> },
  { key: 'result', label: 'Result', render: (a) => a.result ?? <span className="muted">—</span> },
  {
    key: 'reason',
    label: 'Reason',
    render: (a) => {
      const reason = (a.parameters as Record<string, unknown>).reason;
      return typeof reason === 'string' ? reason : <span className="muted">—</span>;
    },
  },
];

export function ActionTable({
  path,
  page,
  pageSize,
  onPage,
  onPageSize,
}: {
  path: string;
  page: number;
  pageSize: number;
  onPage: (page: number) => void;
  onPageSize: (size: number) => void;
}) {
  const { data, error, loading } = useApi<PageList<ClusterAction>>(path, { page, page_size: pageSize });
  if (error) return <ErrorMessage error={error} />;
  if (loading || !data) return <Loading what="Loading actions" />;
  if (data.entries.length === 0) return <Empty>No action was requested on this cluster.</Empty>;
  return (
    <>
      <DataTable caption="Cluster actions" columns={columns} rows={data.entries} rowKey={(a) => a.id} />
      <PagePager
        page={data.page}
        pageCount={data.page_count}
        pageSize={data.page_size}
        total={data.total_count}
        onPage={onPage}
        onPageSize={onPageSize}
      />
    </>
  );
}
