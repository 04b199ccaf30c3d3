/**
 * Access-control detail (#19-#22, cluster roles by uid): bindings and roles by Kubernetes uid,
 * groups and users by identity id. Reads rbac_objects (refreshed at each ingestion) and the
 * identity rows of subjects; every query names the account, so another account's or tenant's
 * object answers 404 like a missing one.
 */
import type { Database } from '../../db/database.js';
import type { Actor } from '../../http/actor.js';
import { ApiError } from '../../http/errors.js';
import { iso, isUuid } from '../../http/ids.js';
import type { AccountService } from '../accounts/service.js';
import { addBinding, createGraph } from './graphs.js';
import {
  bindingSummary,
  componentIdsOf,
  componentRefsOf,
  graphObjectIds,
  nestedRole,
  type ObjectsById,
  roleIdsOf,
  roleRefOf,
  serviceAccountRecord,
  subjectRecord,
} from './records.js';
import * as repo from './repository.js';
import { type SubjectIdentity, subjectIdentity } from './subjects.js';

const notFound = (what: string) => new ApiError('not_found', `${what} not found`);

function clusterFilter(clusterId: string | undefined): string | undefined {
  if (clusterId === undefined) return undefined;
  if (!isUuid(clusterId)) throw ApiError.invalidParam('cluster_id', 'invalid_format', 'must be a cluster id');
  return clusterId.toLowerCase();
}

/** The identities a binding names, resolved as the identity engine does. */
const subjectsOf = (binding: repo.RbacObjectRow): SubjectIdentity[] =>
  (binding.subjects ?? [])
    .map((subject) => subjectIdentity(binding.cluster_id, subject, binding))
    .filter((subject): subject is SubjectIdentity => subject !== null);

export function createRbacService({ db, accounts }: { db: Database; accounts: AccountService }) {
  /** rbac_objects rows by stable object id, added to `into`. */
  async function objectsById(
    accountId: string,
    clusterId: string,
    ids: string[],
    into = new Map<string, repo.RbacObjectRow>(),
  ) {
    for (const row of await repo.findObjectsById(db, accountId, clusterId, ids)) into.set(row.object_id, row);
    return into;
  }

  /** A binding's role (found or missing) and the role's aggregated components. */
  async function roleOfBinding(accountId: string, binding: repo.RbacObjectRow) {
    const objects = await objectsById(accountId, binding.cluster_id, roleIdsOf(binding));
    const role = roleRefOf(binding, objects);
    await objectsById(accountId, binding.cluster_id, componentIdsOf(role.row), objects);
    return { role, components: componentRefsOf(role.row, objects) };
  }

  return {
    async clusterRoleBinding(actor: Actor, accountId: string, uid: string, clusterId?: string) {
      const account = await accounts.requireAccount(actor, accountId, 'viewer');
      const binding = await repo.findObjectByUid(
        db,
        account.id,
        'ClusterRoleBinding',
        uid,
        clusterFilter(clusterId),
      );
      if (!binding) throw notFound('cluster role binding');
      const { role, components } = await roleOfBinding(account.id, binding);
      const subjects = subjectsOf(binding);
      const identities = await repo.findIdentities(
        db,
        account.id,
        subjects.map((subject) => subject.id),
      );
      const objects: ObjectsById = await objectsById(
        account.id,
        binding.cluster_id,
        identities.flatMap(graphObjectIds),
      );
      const serviceAccounts = identities.filter((identity) => identity.type === 'k8s_service_account');
      const versions = await repo.findResourceVersions(
        db,
        account.id,
        binding.cluster_id,
        serviceAccounts.map((identity) => identity.original_id),
      );
      const graph = createGraph(binding.cluster_id);
      addBinding(graph, binding, role, components, subjects);
      const ofType = (type: string) => identities.filter((identity) => identity.type === type);
      return {
        ...bindingSummary(binding),
        cluster_role: role.row && role.kind === 'ClusterRole' ? nestedRole(role.row, '') : null,
        role: null,
        graph: graph.build(),
        groups: ofType('k8s_group').map((identity) => subjectRecord(account.id, identity, objects)),
        users: ofType('k8s_user').map((identity) => subjectRecord(account.id, identity, objects)),
        service_accounts: serviceAccounts.map((identity) =>
          serviceAccountRecord(account.id, identity, objects, versions.get(identity.original_id) ?? ''),
        ),
      };
    },

    /** A group (`k8s_group`) or user (`k8s_user`) identity by id. */
    async subject(actor: Actor, accountId: string, id: string, type: 'k8s_group' | 'k8s_user') {
      const account = await accounts.requireAccount(actor, accountId, 'viewer');
      const identity = isUuid(id) ? await repo.findIdentityOfType(db, account.id, id, type) : undefined;
      if (!identity) throw notFound(type === 'k8s_group' ? 'group' : 'user');
      const objects = await objectsById(account.id, identity.cluster_id, graphObjectIds(identity));
      return subjectRecord(account.id, identity, objects);
    },

    /** A Role or ClusterRole by uid, with the bindings naming it and their subjects. */
    async role(
      actor: Actor,
      accountId: string,
      uid: string,
      kind: 'Role' | 'ClusterRole',
      clusterId?: string,
    ) {
      const account = await accounts.requireAccount(actor, accountId, 'viewer');
      const role = await repo.findObjectByUid(db, account.id, kind, uid, clusterFilter(clusterId));
      if (!role) throw notFound(kind === 'Role' ? 'role' : 'cluster role');
      const bindings = await repo.findBindingsOfRole(db, role);
      const objects = await objectsById(account.id, role.cluster_id, componentIdsOf(role));
      objects.set(role.object_id, role);
      const components = componentRefsOf(role, objects);
      const self = { kind: role.kind, namespace: role.namespace, name: role.name, row: role };
      const graph = createGraph(role.cluster_id);
      const subjects = new Map<string, SubjectIdentity>();
      for (const binding of bindings) {
        const named = subjectsOf(binding);
        addBinding(graph, binding, self, components, named);
        for (const subject of named) subjects.set(subject.id, subject);
      }
      const identities = new Map(
        (await repo.findIdentities(db, account.id, [...subjects.keys()])).map((row) => [row.id, row]),
      );
      const assigned = [...subjects.values()].map((subject) => {
        const identity = identities.get(subject.id);
        const uidOf = identity?.original_id ?? '';
        return {
          id: subject.id,
          uid: subject.kind === 'ServiceAccount' && !uidOf.startsWith('system:') ? uidOf : '',
          kind: subject.kind,
          name: subject.name,
          namespace: subject.namespace,
          account_id: account.id,
          cluster_id: role.cluster_id,
          created_at: iso(identity?.created_at),
          updated_at: iso(identity?.updated_at),
        };
      });
      return {
        ...nestedRole(role, role.kind === 'Role' ? role.namespace : ''),
        assigned_subjects: assigned,
        graph: graph.build(),
        role_bindings: bindings.map(bindingSummary),
      };
    },
  };
}

export type RbacService = ReturnType<typeof createRbacService>;
