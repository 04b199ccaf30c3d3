/** Inserts for the tenancy model; used by the tenancy service (CLI, demo, tests). */
import type { Executor } from '../../db/database.js';
import type { Level, Role } from '../../http/actor.js';

export async function insertTenant(db: Executor, tenant: { id: string; name: string }) {
  await db.query('insert into tenants (id, name) values ($1, $2)', [tenant.id, tenant.name]);
}

export async function insertAccount(db: Executor, account: { id: string; tenantId: string; name: string }) {
  await db.query('insert into accounts (id, tenant_id, name) values ($1, $2, $3)', [
    account.id,
    account.tenantId,
    account.name,
  ]);
}

export async function insertUser(
  db: Executor,
  user: { id: string; tenantId: string; name: string; email: string | null },
) {
  await db.query('insert into users (id, tenant_id, name, email) values ($1, $2, $3, $4)', [
    user.id,
    user.tenantId,
    user.name,
    user.email,
  ]);
}

export async function insertRoleAssignment(
  db: Executor,
  assignment: { tenantId: string; userId: string; level: Level; accountId: string | null; role: Role },
) {
  await db.query(
    `insert into role_assignments (tenant_id, user_id, level, account_id, role) values ($1, $2, $3, $4, $5)
     on conflict do nothing`,
    [assignment.tenantId, assignment.userId, assignment.level, assignment.accountId, assignment.role],
  );
}

export async function setUserLocked(db: Executor, tenantId: string, userId: string, locked: boolean) {
  const { rowCount } = await db.query('update users set locked = $3 where id = $2 and tenant_id = $1', [
    tenantId,
    userId,
    locked,
  ]);
  return rowCount > 0;
}

export async function findTenantByName(db: Executor, name: string) {
  const { rows } = await db.query<{ id: string; name: string }>(
    'select id, name from tenants where name = $1',
    [name],
  );
  return rows[0];
}

export async function countTenants(db: Executor): Promise<number> {
  const { rows } = await db.query<{ n: number }>('select count(*) as n from tenants');
  return rows[0]?.n ?? 0;
}

export async function deleteSessionsOfUser(db: Executor, userId: string) {
  await db.query('delete from sessions where user_id = $1', [userId]);
}
