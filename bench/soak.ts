/**
 * The soak test (issue 10, suite 5): `npm run soak -- [--size small|medium] [--engine
 * postgres|pglite] [--minutes N] [--connections N]`. Not part of CI: ten minutes of mixed reads
 * and ingestion at the medium size, then a verdict on errors, memory trend and p99 stability.
 * Exits non-zero when a check fails. See docs/security.md, "Suite 5: soak".
 */
import { Command, Option } from 'commander';
import { type SoakOptions, soak } from './soak-run.js';

const positive = (name: string) => (value: string) => {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name} must be a positive number`);
  return n;
};

const program = new Command('soak')
  .description('Seed a dataset through the ingestion API, then hold mixed reads and ingestion against it')
  .addOption(new Option('--size <size>', 'dataset size').choices(['small', 'medium']).default('medium'))
  .addOption(
    new Option('--engine <engine>', 'store of the server under test')
      .choices(['postgres', 'pglite'])
      .default(process.env.DATABASE_URL ? 'postgres' : 'pglite'),
  )
  .option('--minutes <n>', 'minutes of load after seeding', positive('--minutes'), 10)
  .option('--connections <n>', 'connections of the readers', positive('--connections'), 16)
  .option(
    '--ingest-period <seconds>',
    'seconds between two rounds of pushes',
    positive('--ingest-period'),
    10,
  )
  .option('--out <file>', 'result file (default bench/results/soak-<engine>-<size>.json)');

program.parse();
const options = program.opts<SoakOptions>();

// Ctrl-C or a TERM ends the load early; the run still stops and drops everything it started.
const interrupt = new AbortController();
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => interrupt.abort());

try {
  const pass = await soak(options, interrupt.signal);
  process.exitCode = pass ? 0 : 1;
} catch (error) {
  console.error('soak failed:', error);
  process.exitCode = 1;
}
// tsx's compiler service would keep the process alive after a failure; everything else is closed.
process.exit();
