import type { Api } from '../../http/api.js';
import { actorOf } from '../../http/auth-hook.js';
import { authenticatedErrors } from '../../http/schemas.js';
import {
  ClusterRoleBindingDetailSchema,
  RbacIdParams,
  RbacObjectQuery,
  RbacUidParams,
  RoleRecordSchema,
  SubjectRecordSchema,
} from './schemas.js';
import type { RbacService } from './service.js';

/** Access-control detail (#19-#22 and cluster roles by uid); docs/identities-api.md. */
export function rbacRoutes(app: Api, { rbac }: { rbac: RbacService }): void {
  const tags = ['access control'];

  app.get(
    '/accounts/:account_id/resources/rbac/clusterrolebindings/:id',
    {
      schema: {
        tags,
        summary: 'A cluster role binding by Kubernetes uid, with its role, subjects and graph',
        params: RbacIdParams,
        querystring: RbacObjectQuery,
        response: { 200: ClusterRoleBindingDetailSchema, ...authenticatedErrors() },
      },
    },
    async (request) =>
      rbac.clusterRoleBinding(
        actorOf(request),
        request.params.account_id,
        request.params.id,
        request.query.cluster_id,
      ),
  );

  for (const [segment, type, what] of [
    ['groups', 'k8s_group', 'A group'],
    ['users', 'k8s_user', 'A user'],
  ] as const) {
    app.get(
      `/accounts/:account_id/resources/rbac/${segment}/:id`,
      {
        schema: {
          tags,
          summary: `${what} by identity id, with the roles, bindings and permissions that reach it`,
          params: RbacIdParams,
          response: { 200: SubjectRecordSchema, ...authenticatedErrors() },
        },
      },
      async (request) => rbac.subject(actorOf(request), request.params.account_id, request.params.id, type),
    );
  }

  for (const [segment, kind, what] of [
    ['roles', 'Role', 'A role'],
    ['clusterroles', 'ClusterRole', 'A cluster role'],
  ] as const) {
    app.get(
      `/accounts/:account_id/resources/rbac/${segment}/:uid`,
      {
        schema: {
          tags,
          summary: `${what} by Kubernetes uid, with its rules, bindings, subjects and graph`,
          params: RbacUidParams,
          querystring: RbacObjectQuery,
          response: { 200: RoleRecordSchema, ...authenticatedErrors() },
        },
      },
      async (request) =>
        rbac.role(
          actorOf(request),
          request.params.account_id,
          request.params.uid,
          kind,
          request.query.cluster_id,
        ),
    );
  }
}
