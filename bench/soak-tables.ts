/**
 * Prints a soak result's tables again, with the checks recomputed by the current code from the
 * samples the file keeps (window RSS floors, per-minute figures):
 * `npx tsx bench/soak-tables.ts bench/results/soak-*.json`.
 */
import { readFileSync } from 'node:fs';
import { checksTable, minuteTable } from './soak-report.js';
import { checks, type MinuteFigures, type RssSample } from './soak-stats.js';

for (const file of process.argv.slice(2)) {
  const result = JSON.parse(readFileSync(file, 'utf8')) as {
    engine: string;
    size: string;
    settings: { minutes: number };
    minutes: MinuteFigures[];
    windows: RssSample[];
  };
  console.log(`\n## soak: ${result.engine}, ${result.size}, ${result.settings.minutes} min (${file})\n`);
  console.log(minuteTable(result.minutes));
  console.log();
  console.log(checksTable(checks(result.windows, result.minutes)));
}
