/** The account's clusters (up to 1000), for cluster pickers and for names in place of ids. */
import type { Account, Cluster, PageList } from '../api/types.js';
import { useApi } from './use-api.js';

export function useClusters(account: Account) {
  const state = useApi<PageList<Cluster>>(`/accounts/${encodeURIComponent(account.id)}/clusters`, {
    page_size: 1000,
    sort: 'name:asc',
  });
  const clusters = state.data?.entries ?? [];
  const nameOf = (id: string) => clusters.find((cluster) => cluster.id === id)?.name ?? id;
  return { ...state, clusters, nameOf };
}
