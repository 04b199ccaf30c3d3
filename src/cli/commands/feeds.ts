/**
 * `posture feeds import FILE...`: loads FIRST EPSS CSV (plain or gzip) and CISA KEV JSON files
 * into the store (DESIGN.md section 3). Each file replaces its feed in one transaction, in the
 * order given; the first bad file stops the command and changes nothing of its feed.
 */
import { statSync } from 'node:fs';
import type { Command } from 'commander';
import { FeedFormatError } from '../../ingest/feeds/feed-format-error.js';
import { openFeedFile } from '../../ingest/feeds/read-feed.js';
import { createFindingsEvaluator } from '../../modules/findings/evaluator.js';
import { enqueueFindingGroupDeliveries } from '../../modules/integrations/finding-listener.js';
import { type FeedImportResult, importFeed } from '../../modules/vulnerabilities/feed-service.js';
import { describeError } from '../errors.js';
import { printResult } from '../output.js';
import { type CliIo, withStore } from '../store.js';
import { examples, jsonOption, requireSubcommand } from './common.js';

type FileImport = FeedImportResult & { file: string };

/** A missing file is reported before the store is opened, as every other bad argument. */
function requireFiles(files: string[]) {
  for (const file of files) {
    let isFile = false;
    try {
      isFile = statSync(file).isFile();
    } catch (error) {
      throw new Error(`cannot read ${file}: ${describeError(error)}`);
    }
    if (!isFile) throw new Error(`cannot read ${file}: not a file`);
  }
}

function failure(file: string, error: unknown, imported: FileImport[]): Error {
  const reason = error instanceof FeedFormatError ? error.message : describeError(error);
  const before =
    imported.length > 0 ? `; imported before it: ${imported.map((done) => done.file).join(', ')}` : '';
  return new Error(`${file}: ${reason}; this file changed nothing${before}`, { cause: error });
}

export function registerFeedCommands(program: Command, io: CliIo): void {
  const feeds = program
    .command('feeds')
    .description('load the EPSS and KEV feeds that enrich the CVE report');

  feeds
    .command('import')
    .description('replace the EPSS scores or the KEV catalog with each file (detected from the content)')
    .argument('<file...>', 'FIRST EPSS CSV (gzip or not) or CISA KEV JSON files')
    .addOption(jsonOption())
    .addHelpText(
      'after',
      examples(
        'posture feeds import epss_scores-current.csv.gz known_exploited_vulnerabilities.json',
        'posture feeds import sample/feeds/epss.csv --json',
      ),
    )
    .action(async (files: string[], options: { json?: boolean }) => {
      requireFiles(files);
      // As the server's import does: a KEV change re-evaluates the findings of the CVEs it moves,
      // and the groups it opens are queued for the integrations (the server delivers them).
      const findings = createFindingsEvaluator({ listeners: [enqueueFindingGroupDeliveries] });
      const imported = await withStore(io, async (store) => {
        const done: FileImport[] = [];
        for (const file of files) {
          try {
            const feed = await openFeedFile(file);
            done.push({ file, ...(await importFeed(store.db, feed, null, [findings.onKevChange])) });
          } catch (error) {
            throw failure(file, error, done);
          }
        }
        return done;
      });
      if (options.json) {
        io.stdout.write(`${JSON.stringify({ imports: imported }, null, 2)}\n`);
        return;
      }
      for (const { file, ...result } of imported) {
        printResult(io, { ...result }, { heading: `Imported ${file}.` });
      }
    });

  requireSubcommand(feeds);
}
