/**
 * Which identity a binding subject is, by the rules of the identity engine
 * (docs/identity-risk.md): a `User` named `system:serviceaccount:<ns>:<name>` is that service
 * account, a `ServiceAccount` subject without namespace takes its RoleBinding's, and any other
 * kind is no identity.
 */
import { identityId } from '../../engines/rbac/index.js';

const SERVICE_ACCOUNT_USER = /^system:serviceaccount:([^:]+):([^:]+)$/;

export interface SubjectIdentity {
  kind: 'ServiceAccount' | 'User' | 'Group';
  namespace: string;
  name: string;
  id: string;
}

export function subjectIdentity(
  clusterId: string,
  subject: { kind: string; name: string; namespace: string },
  binding: { kind: string; namespace: string },
): SubjectIdentity | null {
  if (subject.name === '') return null;
  const make = (kind: SubjectIdentity['kind'], namespace: string, name: string): SubjectIdentity => ({
    kind,
    namespace,
    name,
    id: identityId(clusterId, kind, namespace, name),
  });
  if (subject.kind === 'ServiceAccount') {
    const namespace = subject.namespace || (binding.kind === 'RoleBinding' ? binding.namespace : '');
    return namespace === '' ? null : make('ServiceAccount', namespace, subject.name);
  }
  const asServiceAccount = SERVICE_ACCOUNT_USER.exec(subject.name);
  if (subject.kind === 'User' && asServiceAccount !== null) {
    return make('ServiceAccount', asServiceAccount[1]!, asServiceAccount[2]!);
  }
  if (subject.kind === 'User' || subject.kind === 'Group') return make(subject.kind, '', subject.name);
  return null;
}
