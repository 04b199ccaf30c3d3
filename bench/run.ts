/**
 * The benchmark suite (issue 9): `npm run bench -- --size small|medium|large [--engine
 * postgres|pglite] [--smoke]`. See docs/performance.md for what it measures and how to read it.
 */
import { Command, Option } from 'commander';
import { measure } from './measure.js';
import { SIZES, type SizeName } from './sizes.js';

const program = new Command('bench')
  .description('Generate a dataset through the ingestion API, then measure Posture beside its ceilings')
  .addOption(new Option('--size <size>', 'dataset size').choices(Object.keys(SIZES)).default('small'))
  .addOption(
    new Option('--engine <engine>', 'store of the server under test')
      .choices(['postgres', 'pglite'])
      .default(process.env.DATABASE_URL ? 'postgres' : 'pglite'),
  )
  .option('--seconds <n>', 'seconds of load per case (default: per size)', (value) => Number(value))
  .option('--connections <n>', 'concurrent connections of the load generator', (value) => Number(value), 16)
  .option('--smoke', 'CI: tiny durations, no ceilings; proves the suite runs end to end', false)
  .option(
    '--no-ceilings',
    'load cases without their HTTP and database ceilings (memory and CPU per request only; minutes shorter)',
  )
  .option(
    '--only <pattern>',
    'run only the load cases whose name contains this text (several: comma-separated)',
  )
  .option(
    '--scan-images <n>',
    "scan reports (images) of the measured account, instead of the size's",
    (value) => Number(value),
  )
  .option('--out <file>', 'result file (default bench/results/<engine>-<size>.json)')
  .option('--keep', "keep the run's database or data directory, and print where it is", false);

program.parse();
const options = program.opts<{
  size: SizeName;
  engine: 'postgres' | 'pglite';
  seconds?: number;
  connections: number;
  smoke: boolean;
  ceilings: boolean;
  only?: string;
  scanImages?: number;
  out?: string;
  keep: boolean;
}>();

try {
  await measure(options);
} catch (error) {
  console.error('bench failed:', error);
  process.exitCode = 1;
}
// tsx's compiler service would keep the process alive after a failure; everything else is closed.
process.exit();
