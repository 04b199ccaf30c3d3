/**
 * The database ceiling of a case: pgbench (postgresql-contrib) running the case's own captured
 * statements, parameters inlined, as one scripted transaction per request, with the same
 * connection count and duration as the HTTP load, against the same database. Latency
 * percentiles come from pgbench's per-transaction log (`-l`), throughput from its tps line.
 *
 * Each statement is prepared once per pgbench connection and executed by name, as the server's
 * connections keep theirs prepared (src/db/prepared-statements.ts, docs/performance.md "Fix
 * 37"): the ceiling is PostgreSQL executing the case, not planning it again on every request.
 * pgbench's own prepared mode cannot carry these statements: it takes every `:word` as a
 * variable, string literals included (`'HH24:MI:SS'`), so the script prepares them with SQL's
 * PREPARE on its first transaction (`-D prepared=0`, then `\set prepared 1`, which lasts for the
 * connection) and runs them with EXECUTE.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface PgbenchResult {
  tps: number;
  p50_ms: number;
  p99_ms: number;
  transactions: number;
  failed: number;
}

function run(command: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    // The server's connections run without JIT (src/db/postgres.ts): the ceiling runs the same way.
    const env = { ...process.env, PGOPTIONS: '-c jit=off' };
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? 1, stdout, stderr }));
  });
}

const percentile = (sorted: number[], p: number) =>
  sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;

/**
 * The pgbench script: the statements prepared on a connection's first transaction, executed by
 * name on every one. pgbench reads multi-line SQL up to `;`, and in simple mode `:name` as a
 * variable only when one is defined (`prepared` alone is).
 */
export function preparedScript(statements: readonly string[]): string {
  const name = (index: number) => `posture_ceiling_${index + 1}`;
  return [
    '\\if :prepared = 0',
    ...statements.map((sql, index) => `prepare ${name(index)} as ${sql.trim()};`),
    '\\set prepared 1',
    '\\endif',
    ...statements.map((_sql, index) => `execute ${name(index)};`),
    '',
  ].join('\n');
}

/** Runs `statements` (inlined SQL) under pgbench; `url` is the benchmark database. */
export async function pgbench(
  url: string,
  statements: string[],
  options: { connections: number; seconds: number },
): Promise<PgbenchResult> {
  const dir = mkdtempSync(join(tmpdir(), 'posture-pgbench-'));
  try {
    const script = join(dir, 'case.sql');
    writeFileSync(script, preparedScript(statements));
    const jobs = Math.min(options.connections, 2);
    const { code, stdout, stderr } = await run('pgbench', [
      '-n',
      '-M',
      'simple',
      '-D',
      'prepared=0',
      '-c',
      String(options.connections),
      '-j',
      String(jobs),
      '-T',
      String(Math.max(1, Math.round(options.seconds))),
      '-f',
      script,
      '-l',
      '--log-prefix',
      join(dir, 'log'),
      url,
    ]);
    if (code !== 0) throw new Error(`pgbench failed (${code}): ${stderr.slice(0, 600)}`);
    const latencies: number[] = [];
    for (const file of readdirSync(dir).filter((name) => name.startsWith('log'))) {
      for (const line of readFileSync(join(dir, file), 'utf8').split('\n')) {
        const fields = line.split(' ');
        if (fields.length >= 3) latencies.push(Number(fields[2]) / 1000);
      }
    }
    latencies.sort((a, b) => a - b);
    const tps = Number(/tps = ([\d.]+)/.exec(stdout)?.[1] ?? 0);
    const failed = Number(/number of failed transactions: (\d+)/.exec(stdout)?.[1] ?? 0);
    const round = (value: number) => Math.round(value * 100) / 100;
    return {
      tps: round(tps),
      p50_ms: round(percentile(latencies, 0.5)),
      p99_ms: round(percentile(latencies, 0.99)),
      transactions: latencies.length,
      failed,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
