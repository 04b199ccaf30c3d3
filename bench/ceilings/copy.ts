/**
 * The ingestion ceiling (PostgreSQL): the measured account's rows, as ingestion left them, are
 * copied out in COPY's binary format, then timed while COPY loads them back into empty copies of
 * the same tables (`like ... including all`: same columns, defaults, constraints and indexes).
 * Tables are grouped by the ingestion that writes them: `vulnerability_*` (scan reports),
 * `runtime_*` (runtime events), `finding*` (derived from all three, reported apart), every other
 * account-owned table (Kubernetes objects: resource records, inventory, identities, RBAC).
 * psql's `\copy` does the work.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Executor } from '../../src/db/database.js';

export type IngestKind = 'kubernetes' | 'vulnerabilities' | 'runtime' | 'findings';

export interface CopyCeiling {
  kind: IngestKind;
  tables: Record<string, number>;
  rows: number;
  seconds: number;
}

/** Runs one psql command; returns the server-side time psql's `\\timing` reports, in seconds. */
function psql(url: string, command: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      'psql',
      ['-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', url, '-c', '\\timing on', '-c', command],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) reject(new Error(`psql: ${stderr.slice(0, 400)}`));
      else resolve(Number(/Time: ([\d.]+) ms/.exec(stdout)?.[1] ?? Number.NaN) / 1000);
    });
  });
}

const kindOf = (table: string): IngestKind =>
  table.startsWith('vulnerability_')
    ? 'vulnerabilities'
    : table.startsWith('runtime_')
      ? 'runtime'
      : 'kubernetes';

export async function copyCeilings(db: Executor, url: string, accountId: string): Promise<CopyCeiling[]> {
  const { rows: tables } = await db.query<{ table_name: string; columns: string }>(
    `select c.table_name, string_agg(quote_ident(c.column_name), ', ' order by c.ordinal_position) as columns
       from information_schema.columns c
      where c.table_schema = 'public' and c.is_generated = 'NEVER'
        and c.table_name in (select table_name from information_schema.columns
                              where table_schema = 'public' and column_name = 'account_id')
        and c.table_name in (select table_name from information_schema.tables
                              where table_schema = 'public' and table_type = 'BASE TABLE')
      group by c.table_name order by c.table_name`,
  );
  const dir = mkdtempSync(join(tmpdir(), 'posture-copy-'));
  const ceilings = new Map<IngestKind, CopyCeiling>();
  try {
    for (const { table_name: table, columns } of tables) {
      const { rows } = await db.query<{ n: number }>(
        `select count(*) as n from ${table} where account_id = $1`,
        [accountId],
      );
      const count = Number(rows[0]?.n ?? 0);
      if (count === 0) continue;
      const file = join(dir, `${table}.bin`);
      const copyTable = `bench_copy_${table}`;
      await psql(
        url,
        `\\copy (select ${columns} from ${table} where account_id = '${accountId}') to '${file}' with (format binary)`,
      );
      await db.exec(
        `drop table if exists ${copyTable}; create table ${copyTable} (like ${table} including all)`,
      );
      // psql's own start-up is not part of the copy: its `\\timing` figure is.
      const seconds = await psql(url, `\\copy ${copyTable} (${columns}) from '${file}' with (format binary)`);
      await db.exec(`drop table ${copyTable}`);
      const kind = kindOf(table);
      const ceiling = ceilings.get(kind) ?? { kind, tables: {}, rows: 0, seconds: 0 };
      ceiling.tables[table] = count;
      ceiling.rows += count;
      ceiling.seconds += seconds;
      ceilings.set(kind, ceiling);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return [...ceilings.values()];
}
