import type { Migration } from '../migrator.js';

/**
 * What the identities step needs to recompute from a push's delta instead of from the whole
 * cluster (docs/identities-api.md, "Recomputing from the delta").
 *
 * - identity_source_links: for every live object identities derive from, the identity-relevant
 *   references it holds, one row each: a binding's subjects (`subject`, the identity key) and
 *   role (`role`), a pod's or workload's service account (`uses`) and controller owner
 *   (`owner`, by uid and by kind/namespace/name), and a digest of what the engine reads from a
 *   pod, workload or ServiceAccount (`digest`, to skip versions that change nothing it reads).
 *   Read in both directions: by object (what a changed object referenced before the push) and by
 *   (link, key) (which bindings name these identities, which pods run as these accounts).
 * - identity_source_state: the clusters whose links are complete. A cluster without a row (its
 *   data predates this migration) gets one full recompute, which writes its links.
 */
export const identityDelta: Migration = {
  id: '0013-identity-delta',
  sql: `
create table identity_source_links (
  account_id uuid not null,
  cluster_id uuid not null,
  uid text collate "C" not null,
  link text collate "C" not null,
  key text collate "C" not null,
  primary key (account_id, cluster_id, uid, link, key)
);
create index identity_source_links_key on identity_source_links (account_id, cluster_id, link, key);

create table identity_source_state (
  account_id uuid not null,
  cluster_id uuid not null,
  linked_at timestamptz not null,
  primary key (account_id, cluster_id)
);
`,
};
