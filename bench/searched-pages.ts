/**
 * What a searched page costs one client, with and without the search's kept matches
 * (src/modules/list-totals/searched-matches.ts, docs/performance.md "Fix 63"): the repository's
 * page of `q` alone in name order (100 a page, the whole entries), as the owner, on a kept store.
 * Per round and list, the median of `--pages` pages: every page searching (no kept matches), a
 * first page that keeps them, and pages 1 and 50 read from them.
 *
 *   DATABASE_URL=<owner's URL of the kept store> npx tsx bench/searched-pages.ts <account id>
 *     [--containers svc-12] [--packages service12] [--rounds 3] [--pages 40]
 *
 * The store is one kept by `npm run bench -- --size large --engine postgres --keep`; the account
 * is the measured one (the account with the most containers). Not a test: it asserts nothing.
 */
import { parseArgs } from 'node:util';
import { testConfig } from '../src/config.js';
import { openDatabase } from '../src/db/database.js';
import { parseFilters } from '../src/http/filters.js';
import { parseSort } from '../src/http/sort.js';
import { listContainers } from '../src/modules/inventory-containers/repository.js';
import { CONTAINER_FILTER_KEYS, CONTAINER_SORT_FIELDS } from '../src/modules/inventory-containers/schemas.js';
import { SearchedMatches } from '../src/modules/list-totals/searched-matches.js';
import { listPackages } from '../src/modules/vulnerabilities/package-repository.js';
import { PACKAGE_FILTER_KEYS, PACKAGE_SORT_FIELDS } from '../src/modules/vulnerabilities/package-schemas.js';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    containers: { type: 'string', default: 'svc-12' },
    packages: { type: 'string', default: 'service12' },
    rounds: { type: 'string', default: '3' },
    pages: { type: 'string', default: '40' },
  },
});
const [accountId] = positionals;
const url = process.env.DATABASE_URL;
if (!accountId || !url) throw new Error('usage: DATABASE_URL=... searched-pages.ts <account id> [options]');

const db = await openDatabase(testConfig({ DATABASE_URL: url }), { warn() {}, error() {} });
const LIMIT = 100;

/** One page of a list's search, with the kept matches given (none: it searches). */
type ReadPage = (searches: SearchedMatches | undefined, offset: number) => Promise<{ total: number }>;

const lists: { name: string; q: string; read: ReadPage }[] = [
  {
    name: 'inventory containers',
    q: values.containers,
    read: (searches, offset) =>
      listContainers(db, accountId, {
        filters: parseFilters(undefined, CONTAINER_FILTER_KEYS),
        q: values.containers,
        searchPath: 'function',
        sort: parseSort(undefined, CONTAINER_SORT_FIELDS, 'name:asc'),
        page: { limit: LIMIT, offset },
        searches,
      }),
  },
  {
    name: 'inventory packages',
    q: values.packages,
    read: (searches, offset) =>
      listPackages(db, accountId, {
        filters: parseFilters(undefined, PACKAGE_FILTER_KEYS),
        inUse: undefined,
        severities: [],
        q: values.packages,
        searchPath: 'function',
        sort: parseSort(undefined, PACKAGE_SORT_FIELDS, 'name:asc'),
        page: { limit: LIMIT, offset },
        searches,
      }),
  },
];

/** The median ms of `pages` runs of `run`, one after the other. */
async function medianMs(run: () => Promise<unknown>): Promise<string> {
  const ms: number[] = [];
  for (let i = 0; i < Number(values.pages); i++) {
    const started = performance.now();
    await run();
    ms.push(performance.now() - started);
  }
  ms.sort((a, b) => a - b);
  return ms[Math.floor(ms.length / 2)]!.toFixed(2);
}

console.log(
  '| round | list | q | matches | every page searches | a first page, which keeps | page 1 kept | page 50 kept |',
);
console.log('| ---: | --- | --- | ---: | ---: | ---: | ---: | ---: |');
for (let round = 1; round <= Number(values.rounds); round++) {
  for (const list of lists) {
    const searching = await medianMs(() => list.read(undefined, 0));
    const keeping = await medianMs(() => list.read(new SearchedMatches(), 0));
    const kept = new SearchedMatches();
    const { total } = await list.read(kept, 0);
    const first = await medianMs(() => list.read(kept, 0));
    const fiftieth = total > 49 * LIMIT ? await medianMs(() => list.read(kept, 49 * LIMIT)) : '-';
    console.log(
      `| ${round} | ${list.name} | ${list.q} | ${total} | ${searching} | ${keeping} | ${first} | ${fiftieth} |`,
    );
  }
}
await db.close();
