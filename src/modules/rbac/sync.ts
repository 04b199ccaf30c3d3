/**
 * Keeps rbac_objects, what the access-control endpoints (#19-#22) read, in step with the live
 * RBAC objects of a cluster. Runs in the identities recompute, inside the ingestion transaction.
 *
 * Per object it stores what a detail read needs without re-running the engine: the effective
 * rules of roles (an aggregated ClusterRole holds its components' rules, as the engine counts
 * them), the aggregated components, and the subjects of bindings resolved to identity ids.
 * Rows are rewritten only when their content hash changes; rows of objects that are gone are
 * deleted (their identities keep the history).
 */
import type { Executor } from '../../db/database.js';
import { aggregateClusterRoles, type EffectiveRule, mergeRules } from '../../engines/rbac/aggregation.js';
import { rbacObjectId } from '../../engines/rbac/index.js';
import { readInventory } from '../../engines/rbac/objects.js';
import { createHandles } from '../../engines/rbac/permissions.js';
import type { BindingObject, KubeObject } from '../../engines/rbac/types.js';
import { batches } from '../../ingest/batches.js';
import { recordIdOf, sha256 } from '../identities/identity-content.js';
import { type ClusterScope, RBAC_KINDS, type SourceObject } from '../identities/sources.js';
import { subjectIdentity } from './subjects.js';

export interface StoredRule {
  api_groups: string[];
  resources: string[];
  verbs: string[];
  resource_names: string[];
  non_resource_urls: string[];
  /** the roles that literally hold the rule: the role itself or aggregated components */
  sources: { kind: string; name: string; uid: string }[];
}

export interface StoredSubject {
  kind: string;
  name: string;
  namespace: string;
  api_group: string;
  /** the identity the subject is (null for a subject kind that names none) */
  identity_id: string | null;
}

export interface RbacObjectContent {
  uid: string;
  object_id: string;
  kind: string;
  namespace: string;
  name: string;
  resource_version: string;
  record_id: string;
  created_at: string | null;
  updated_at: string;
  role_ref_kind: string | null;
  role_ref_name: string | null;
  role_ref_api_group: string | null;
  subjects: StoredSubject[] | null;
  rules: StoredRule[] | null;
  components: string[] | null;
}

const toStoredRules = (rules: readonly EffectiveRule[]): StoredRule[] =>
  rules.map(({ rule, sources }) => ({
    api_groups: rule.apiGroups,
    resources: rule.resources,
    verbs: rule.verbs,
    resource_names: rule.resourceNames,
    non_resource_urls: rule.nonResourceURLs,
    sources: sources.map((source) => ({ kind: source.kind, name: source.name, uid: source.uid })),
  }));

/** The rbac_objects rows of a cluster from its live objects. */
export function rbacObjectContents(clusterId: string, sources: readonly SourceObject[]): RbacObjectContent[] {
  const rbac = sources.filter((source) => (RBAC_KINDS as readonly string[]).includes(source.kind));
  const ingestedAt = new Map(rbac.map((source) => [source.recordId, source.ingestedAt.toISOString()]));
  const inventory = readInventory(rbac.map((source) => source.raw));
  const handles = createHandles(clusterId);
  const handleOf = (object: KubeObject) =>
    handles(object.kind, object.meta.namespace, object.meta.name, object);
  const aggregation = aggregateClusterRoles(inventory.clusterRoles, handleOf);

  const base = (object: KubeObject): Omit<RbacObjectContent, 'subjects' | 'rules' | 'components'> | null => {
    const recordId = recordIdOf(object.raw);
    if (recordId === null || object.meta.uid === '') return null;
    return {
      uid: object.meta.uid,
      object_id: rbacObjectId(clusterId, object.kind, object.meta.namespace, object.meta.name),
      kind: object.kind,
      namespace: object.meta.namespace,
      name: object.meta.name,
      resource_version: object.meta.resourceVersion,
      record_id: recordId,
      created_at: object.meta.creationTimestamp,
      updated_at: ingestedAt.get(recordId) ?? new Date(0).toISOString(),
      role_ref_kind: null,
      role_ref_name: null,
      role_ref_api_group: null,
    };
  };
  const binding = (object: BindingObject): RbacObjectContent | null => {
    const row = base(object);
    if (row === null) return null;
    return {
      ...row,
      role_ref_kind: object.roleRef.kind,
      role_ref_name: object.roleRef.name,
      role_ref_api_group: object.roleRef.apiGroup,
      subjects: object.subjects.map((subject) => ({
        kind: subject.kind,
        name: subject.name,
        namespace: subject.namespace,
        api_group: subject.apiGroup,
        identity_id:
          subjectIdentity(clusterId, subject, { kind: object.kind, namespace: row.namespace })?.id ?? null,
      })),
      rules: null,
      components: null,
    };
  };
  const rows: (RbacObjectContent | null)[] = [
    ...inventory.clusterRoles.map((role) => {
      const row = base(role);
      if (row === null) return null;
      const components = aggregation.components.get(role.meta.name);
      return {
        ...row,
        subjects: null,
        rules: toStoredRules(aggregation.rules.get(role.meta.name) ?? []),
        components: components ? components.map((component) => component.meta.name) : null,
      };
    }),
    ...inventory.roles.map((role) => {
      const row = base(role);
      if (row === null) return null;
      const handle = handleOf(role);
      const rules = mergeRules(role.rules.map((rule) => ({ rule, source: handle })));
      return { ...row, subjects: null, rules: toStoredRules(rules), components: null };
    }),
    ...inventory.clusterRoleBindings.map(binding),
    ...inventory.roleBindings.map(binding),
  ];
  return rows.filter((row): row is RbacObjectContent => row !== null);
}

const COLUMNS = [
  'uid',
  'object_id',
  'kind',
  'namespace',
  'name',
  'resource_version',
  'record_id',
  'created_at',
  'updated_at',
  'role_ref_kind',
  'role_ref_name',
  'role_ref_api_group',
  'subjects',
  'rules',
  'components',
] as const;

/**
 * `only`: refresh just the rows of these uids (the identities delta recompute), from `sources`
 * holding their live objects (and every ClusterRole when one of them is a ClusterRole); a uid
 * without a live object among the sources loses its row.
 */
export async function syncRbacObjects(
  db: Executor,
  scope: ClusterScope,
  sources: readonly SourceObject[],
  only?: readonly string[],
) {
  const subset = only === undefined ? null : new Set(only);
  const contents = rbacObjectContents(scope.clusterId, sources)
    .filter((content) => subset === null || subset.has(content.uid))
    .map((content) => ({
      content,
      hash: sha256(JSON.stringify(COLUMNS.map((column) => content[column]))),
    }));
  const { rows: stored } = await db.query<{ uid: string; content_hash: string }>(
    `select uid, content_hash from rbac_objects where account_id = $1 and cluster_id = $2
       ${subset === null ? '' : 'and uid = any($3::text[])'}`,
    subset === null ? [scope.accountId, scope.clusterId] : [scope.accountId, scope.clusterId, [...subset]],
  );
  const storedHash = new Map(stored.map((row) => [row.uid, row.content_hash]));
  const live = new Set(contents.map(({ content }) => content.uid));
  const gone = stored.filter((row) => !live.has(row.uid)).map((row) => row.uid);
  for (const batch of batches(gone)) {
    await db.query(
      'delete from rbac_objects where account_id = $1 and cluster_id = $2 and uid = any($3::text[])',
      [scope.accountId, scope.clusterId, batch],
    );
  }
  const changed = contents.filter(({ content, hash }) => storedHash.get(content.uid) !== hash);
  for (const batch of batches(changed, 500)) {
    const column = (pick: (row: (typeof batch)[number]) => unknown) => batch.map(pick);
    const json = (value: unknown) => (value === null ? null : JSON.stringify(value));
    await db.query(
      `insert into rbac_objects (account_id, cluster_id, ${COLUMNS.join(', ')}, content_hash)
       select $1, $2, v.uid, v.object_id, v.kind, v.namespace, v.name, v.resource_version, v.record_id,
              v.created_at, v.updated_at, v.role_ref_kind, v.role_ref_name, v.role_ref_api_group,
              v.subjects::jsonb, v.rules::jsonb, v.components::jsonb, v.content_hash
         from unnest($3::text[], $4::uuid[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[],
                     $10::timestamptz[], $11::timestamptz[], $12::text[], $13::text[], $14::text[],
                     $15::text[], $16::text[], $17::text[], $18::text[])
              as v (uid, object_id, kind, namespace, name, resource_version, record_id, created_at,
                    updated_at, role_ref_kind, role_ref_name, role_ref_api_group, subjects, rules,
                    components, content_hash)
       on conflict (account_id, cluster_id, uid) do update set
         ${[...COLUMNS.slice(1), 'content_hash'].map((c) => `${c} = excluded.${c}`).join(', ')}`,
      [
        scope.accountId,
        scope.clusterId,
        ...COLUMNS.slice(0, 12).map((name) => column(({ content }) => content[name])),
        column(({ content }) => json(content.subjects)),
        column(({ content }) => json(content.rules)),
        column(({ content }) => json(content.components)),
        column(({ hash }) => hash),
      ],
    );
  }
}
