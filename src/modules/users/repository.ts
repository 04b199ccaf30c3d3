import type { Executor } from '../../db/database.js';
import type { Level, Role } from '../../http/actor.js';
import type { OffsetPage } from '../../http/paging.js';

export interface AssignmentRow {
  level: Level;
  account_id: string | null;
  /** the account's name, or the tenant's for a tenant-level assignment */
  scope_name: string;
  role: Role;
}

export interface UserRow {
  id: string;
  name: string;
  email: string | null;
  locked: boolean;
  last_login_at: Date | null;
  created_at: Date;
}

export interface MemberRow extends UserRow {
  roles: AssignmentRow[];
}

const ASSIGNMENTS_JSON = `coalesce((
  select json_agg(json_build_object('level', r.level, 'account_id', r.account_id, 'role', r.role,
                                    'scope_name', coalesce(a.name, t.name))
                  order by r.level desc, a.name, r.role)
    from role_assignments r
    left join accounts a on a.id = r.account_id
    join tenants t on t.id = r.tenant_id
   where r.user_id = u.id and (r.level = 'tenant' or r.account_id = $2)), '[]'::json)`;

const parseRoles = (row: MemberRow): MemberRow =>
  typeof row.roles === 'string' ? { ...row, roles: JSON.parse(row.roles) } : row;

/** Members of an account: users with a tenant-level role or a role on that account. */
export async function listMembers(db: Executor, tenantId: string, accountId: string, page: OffsetPage) {
  const member = `u.tenant_id = $1 and exists (select 1 from role_assignments r
      where r.user_id = u.id and (r.level = 'tenant' or r.account_id = $2))`;
  const [list, count] = await Promise.all([
    db.query<MemberRow>(
      `select u.id, u.name, u.email, u.locked, u.last_login_at, u.created_at, ${ASSIGNMENTS_JSON} as roles
         from users u where ${member} order by u.name, u.id limit $3 offset $4`,
      [tenantId, accountId, page.limit, page.offset],
    ),
    db.query<{ total: number }>(`select count(*) as total from users u where ${member}`, [
      tenantId,
      accountId,
    ]),
  ]);
  return { rows: list.rows.map(parseRoles), total: count.rows[0]?.total ?? 0 };
}

export async function findUserInTenant(db: Executor, tenantId: string, userId: string) {
  const { rows } = await db.query<UserRow>(
    'select id, name, email, locked, last_login_at, created_at from users where id = $1 and tenant_id = $2',
    [userId, tenantId],
  );
  return rows[0];
}

export async function assignmentsOfUser(db: Executor, userId: string): Promise<AssignmentRow[]> {
  const { rows } = await db.query<AssignmentRow>(
    `select r.level, r.account_id, r.role, coalesce(a.name, t.name) as scope_name
       from role_assignments r
       left join accounts a on a.id = r.account_id
       join tenants t on t.id = r.tenant_id
      where r.user_id = $1
      order by r.level desc, a.name, r.role`,
    [userId],
  );
  return rows;
}

/** Serialises role changes within a tenant, so the last-admin rule cannot be raced. */
export async function lockTenant(db: Executor, tenantId: string): Promise<void> {
  await db.query('select id from tenants where id = $1 for update', [tenantId]);
}

export async function deleteAssignment(
  db: Executor,
  userId: string,
  assignment: { level: Level; accountId: string | null; role: Role },
) {
  await db.query(
    `delete from role_assignments where user_id = $1 and level = $2 and account_id is not distinct from $3 and role = $4`,
    [userId, assignment.level, assignment.accountId, assignment.role],
  );
}

/** Tenant admins who can still sign in: the tenant must never be left without one. */
export async function countActiveTenantAdmins(db: Executor, tenantId: string): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    `select count(distinct r.user_id) as n from role_assignments r join users u on u.id = r.user_id
      where r.tenant_id = $1 and r.level = 'tenant' and r.role = 'admin' and not u.locked`,
    [tenantId],
  );
  return rows[0]?.n ?? 0;
}

export async function accountIdsInTenant(db: Executor, tenantId: string, ids: readonly string[]) {
  const { rows } = await db.query<{ id: string }>(
    'select id from accounts where tenant_id = $1 and id = any($2::uuid[])',
    [tenantId, ids],
  );
  return new Set(rows.map((row) => row.id));
}
