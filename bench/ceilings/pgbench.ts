/**
 * The database ceiling of a case: pgbench (postgresql-contrib) running the case's own captured
 * statements, parameters inlined, as one scripted transaction per request, with the same
 * connection count and duration as the HTTP load, against the same database. Latency
 * percentiles come from pgbench's per-transaction log (`-l`), throughput from its tps line.
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

/** Runs `statements` (inlined SQL) under pgbench; `url` is the benchmark database. */
export async function pgbench(
  url: string,
  statements: string[],
  options: { connections: number; seconds: number },
): Promise<PgbenchResult> {
  const dir = mkdtempSync(join(tmpdir(), 'posture-pgbench-'));
  try {
    const script = join(dir, 'case.sql');
    // pgbench reads multi-line SQL up to `;`, and `:name` as a variable only when one is defined.
    writeFileSync(script, statements.map((sql) => `${sql.trim()};\n`).join(''));
    const jobs = Math.min(options.connections, 2);
    const { code, stdout, stderr } = await run('pgbench', [
      '-n',
      '-M',
      'simple',
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
