/**
 * Which of the identities a push reached can have anything to compute or write. The engine makes
 * an identity of every ServiceAccount object and of every binding subject (identities.ts), and
 * nothing else: a pod running as an account that neither exists nor is named by any binding (the
 * `default` account of a namespace whose account was never pushed) reaches an identity key that
 * the engine never produces. Unless such an identity was stored earlier (its removal must then be
 * written), computing it reads every pod and workload running as it, and its owner chains, to
 * produce nothing (docs/performance.md, "Fix 17e").
 *
 * Conservative: a key is dropped only when no live ServiceAccount object has its name, no live
 * binding names it (identity_source_links, written before this read), and no row of it is stored.
 */
import type { Executor } from '../../db/database.js';
import { identityId } from '../../engines/rbac/index.js';
import { parseIdentityKey } from './delta-sources.js';
import { loadLinksTo } from './source-links.js';
import type { ClusterScope } from './sources.js';

export async function possibleIdentities(
  db: Executor,
  scope: ClusterScope,
  keys: ReadonlySet<string>,
): Promise<Set<string>> {
  const possible = new Set<string>();
  if (keys.size === 0) return possible;
  const idOf = new Map(
    [...keys].map((key) => {
      const { kind, namespace, name } = parseIdentityKey(key);
      return [identityId(scope.clusterId, kind, namespace, name), key];
    }),
  );
  const { rows: stored } = await db.query<{ id: string }>(
    'select id from identities where account_id = $1 and cluster_id = $2 and id = any($3::uuid[])',
    [scope.accountId, scope.clusterId, [...idOf.keys()]],
  );
  for (const { id } of stored) possible.add(idOf.get(id)!);

  const unknown = () => [...keys].filter((key) => !possible.has(key));
  for (const link of await loadLinksTo(db, scope, 'subject', unknown())) possible.add(link.key);

  const accounts = unknown()
    .map((key) => ({ key, ...parseIdentityKey(key) }))
    .filter((identity) => identity.kind === 'ServiceAccount');
  if (accounts.length > 0) {
    const { rows: live } = await db.query<{ namespace: string; name: string }>(
      `select namespace, name from cluster_resources
        where account_id = $1 and cluster_id = $2 and kind = 'ServiceAccount' and name = any($3::text[])
          and is_latest and deleted_at is null`,
      [scope.accountId, scope.clusterId, [...new Set(accounts.map((account) => account.name))]],
    );
    const names = new Set(live.map((row) => `${row.namespace}\u0000${row.name}`));
    for (const account of accounts) {
      if (names.has(`${account.namespace}\u0000${account.name}`)) possible.add(account.key);
    }
  }
  return possible;
}
