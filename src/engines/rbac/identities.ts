/**
 * Who the identities of a cluster are, and which grants reach each of them.
 *
 * - Every ServiceAccount object is an identity (`k8s_service_account`).
 * - Every subject of a binding is one too: `User` -> `k8s_user`, `Group` -> `k8s_group`, and a
 *   `ServiceAccount` subject whose object does not exist -> `k8s_service_account` (whoever creates
 *   that service account inherits the binding, so hiding it would hide the grant).
 * - A `User` subject named `system:serviceaccount:<ns>:<name>` is that service account: it is the
 *   user name Kubernetes authenticates the service account's tokens as.
 * - System identities (kube-system controllers, `system:` users and groups) are identities too.
 *
 * Kubernetes also puts every request in groups of its own; their bindings reach the members:
 * service accounts are in `system:serviceaccounts`, `system:serviceaccounts:<ns>` and
 * `system:authenticated`; users in `system:authenticated`, except `system:anonymous`, which is in
 * `system:unauthenticated`.
 */
import { identityId } from './ids.js';
import { sortBy } from './order.js';
import type { Grant } from './permissions.js';
import type { IdentityType, Inventory, KubeObject } from './types.js';

export type IdentityKind = 'ServiceAccount' | 'User' | 'Group';

export interface IdentityDraft {
  id: string;
  kind: IdentityKind;
  type: IdentityType;
  name: string;
  /** The service account's namespace; '' for users and groups. */
  namespace: string;
  serviceAccount: KubeObject | null;
  /** Grants whose binding names this identity itself. */
  direct: Grant[];
}

/** A grant as it reaches an identity: directly, or through a group it belongs to. */
export interface GrantRef {
  grant: Grant;
  via: IdentityDraft | null;
}

const TYPES: Record<IdentityKind, IdentityType> = {
  ServiceAccount: 'k8s_service_account',
  User: 'k8s_user',
  Group: 'k8s_group',
};

const SERVICE_ACCOUNT_USER = /^system:serviceaccount:([^:]+):([^:]+)$/;

const draftKey = (kind: IdentityKind, namespace: string, name: string) =>
  `${kind}\u0000${namespace}\u0000${name}`;

/** Identities sorted by type, namespace and name, each with its direct grants. */
export function collectIdentities(
  clusterId: string,
  inventory: Inventory,
  grants: readonly Grant[],
  warnings: string[],
): Map<string, IdentityDraft> {
  const drafts = new Map<string, IdentityDraft>();
  const draft = (kind: IdentityKind, namespace: string, name: string): IdentityDraft => {
    const key = draftKey(kind, namespace, name);
    let found = drafts.get(key);
    if (found === undefined) {
      found = {
        id: identityId(clusterId, kind, namespace, name),
        kind,
        type: TYPES[kind],
        name,
        namespace,
        serviceAccount: null,
        direct: [],
      };
      drafts.set(key, found);
    }
    return found;
  };

  for (const account of inventory.serviceAccounts) {
    draft('ServiceAccount', account.meta.namespace, account.meta.name).serviceAccount = account;
  }
  for (const grant of grants) {
    for (const subject of grant.subjects) {
      const where = `${grant.binding.kind} ${grant.binding.key}`;
      let target: IdentityDraft | null = null;
      const asServiceAccount = SERVICE_ACCOUNT_USER.exec(subject.name);
      if (subject.name === '') {
        warnings.push(`${where}: a subject without a name is ignored`);
      } else if (subject.kind === 'ServiceAccount') {
        // Kubernetes requires the namespace; a RoleBinding's own namespace is the only sane default.
        const namespace = subject.namespace || (grant.scope === '' ? '' : grant.binding.namespace);
        if (namespace === '')
          warnings.push(`${where}: ServiceAccount subject "${subject.name}" has no namespace`);
        else target = draft('ServiceAccount', namespace, subject.name);
      } else if (subject.kind === 'User' && asServiceAccount !== null) {
        target = draft('ServiceAccount', asServiceAccount[1]!, asServiceAccount[2]!);
      } else if (subject.kind === 'User' || subject.kind === 'Group') {
        target = draft(subject.kind, '', subject.name);
      } else {
        warnings.push(`${where}: subject kind "${subject.kind}" is not an identity kind`);
      }
      // Subjects of one grant are handled together: a repeated subject is the last grant pushed.
      if (target !== null && target.direct.at(-1) !== grant) target.direct.push(grant);
    }
  }
  const ordered = sortBy(drafts.entries(), ([, d]) => [d.type, d.namespace, d.name]);
  return new Map(ordered);
}

/** The groups Kubernetes puts every request of this identity in. */
export function implicitGroups(identity: Pick<IdentityDraft, 'kind' | 'name' | 'namespace'>): string[] {
  if (identity.kind === 'ServiceAccount') {
    return ['system:authenticated', 'system:serviceaccounts', `system:serviceaccounts:${identity.namespace}`];
  }
  if (identity.kind === 'User') {
    return [identity.name === 'system:anonymous' ? 'system:unauthenticated' : 'system:authenticated'];
  }
  return [];
}

/** Direct grants first, then those of the implicit groups that some binding names. */
export function grantRefsOf(identity: IdentityDraft, drafts: Map<string, IdentityDraft>): GrantRef[] {
  const refs: GrantRef[] = identity.direct.map((grant) => ({ grant, via: null }));
  for (const group of implicitGroups(identity)) {
    const member = drafts.get(draftKey('Group', '', group));
    if (member !== undefined) for (const grant of member.direct) refs.push({ grant, via: member });
  }
  return refs;
}

export function isSystemIdentity(identity: Pick<IdentityDraft, 'kind' | 'name' | 'namespace'>): boolean {
  if (identity.kind === 'ServiceAccount') return identity.namespace === 'kube-system';
  return identity.name.startsWith('system:');
}
