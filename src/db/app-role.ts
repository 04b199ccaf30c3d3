/**
 * The PostgreSQL role the application connects as, and why it matters: row-level security
 * (migration 0011) binds only a role that does not own the tables, is not a superuser and has no
 * BYPASSRLS. The migrator runs as the owner (DATABASE_MIGRATION_URL) and grants the application's
 * role plain data rights; the server checks that role at boot and refuses to start when the
 * policies would not bind it (docs/security.md, "Row-level security").
 */
import type { Executor } from './database.js';

export class AppRoleError extends Error {}

/** The user name of a PostgreSQL connection string. */
export function roleOfUrl(url: string): string {
  const user = decodeURIComponent(new URL(url).username);
  if (!user) throw new AppRoleError('DATABASE_URL names no user: the application role must be explicit');
  return user;
}

const quoteIdentifier = (name: string): string => `"${name.replaceAll('"', '""')}"`;

/** Run by the owner after migrating: data rights on every table and sequence, nothing more. */
export async function grantAppRole(owner: Executor, role: string): Promise<void> {
  const grantee = quoteIdentifier(role);
  await owner.exec(`
    grant usage on schema public to ${grantee};
    grant select, insert, update, delete on all tables in schema public to ${grantee};
    grant usage, select on all sequences in schema public to ${grantee};
  `);
}

/**
 * Why the connected role would slip past the policies; empty when it cannot. Checked with the
 * catalog, so a role granted BYPASSRLS or handed a table's ownership later is caught at next boot.
 */
export async function appRoleProblems(db: Executor): Promise<string[]> {
  const { rows } = await db.query<{ role: string; superuser: boolean; bypass: boolean; owned: string[] }>(
    `select r.rolname as role, r.rolsuper as superuser, r.rolbypassrls as bypass,
            coalesce(array(select c.relname::text from pg_class c
                            where c.relnamespace = current_schema()::regnamespace
                              and c.relkind in ('r', 'p') and pg_has_role(current_user, c.relowner, 'USAGE')
                            order by c.relname limit 5), '{}') as owned
       from pg_roles r where r.rolname = current_user`,
  );
  const role = rows[0];
  if (!role) return ['the connected role is not in pg_roles'];
  const problems: string[] = [];
  if (role.superuser) problems.push(`role ${role.role} is a superuser`);
  if (role.bypass) problems.push(`role ${role.role} has BYPASSRLS`);
  if (role.owned.length > 0) {
    problems.push(`role ${role.role} owns (or is a member of the owner of) tables: ${role.owned.join(', ')}`);
  }
  return problems;
}

/** Throws an AppRoleError naming the fix when the role could bypass row-level security. */
export async function checkAppRole(db: Executor): Promise<void> {
  const problems = await appRoleProblems(db);
  if (problems.length === 0) return;
  throw new AppRoleError(
    `DATABASE_URL's role would bypass row-level security: ${problems.join('; ')}.\n` +
      'Connect the server as a role that is neither owner nor superuser nor BYPASSRLS, and run ' +
      'migrations as the owner with DATABASE_MIGRATION_URL (docs/development.md, "PostgreSQL roles"). ' +
      'For a single-role development database only, DATABASE_RLS_CHECK=off starts anyway, unprotected.',
  );
}
