/**
 * containsPattern is checked against the database itself: for any phrase q and text s,
 * `s ILIKE containsPattern(q)` must hold exactly when s contains q ignoring case. Runs on PGlite,
 * and on the PostgreSQL server of DATABASE_URL as well when it is set (read-only queries).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { PGlite } from '@electric-sql/pglite';
import fc from 'fast-check';
import pg from 'pg';
import { containsPattern } from './search.js';

interface Engine {
  name: string;
  /** `s ilike pattern`, and the database's own answer to "does lower(s) contain lower(q)". */
  check(s: string, pattern: string, q: string): Promise<{ matched: boolean; contains: boolean }>;
  close(): Promise<void>;
}

const SQL =
  'select $1::text ilike $2::text as matched, strpos(lower($1::text), lower($3::text)) > 0 as contains';

async function pgliteEngine(): Promise<Engine> {
  const db = new PGlite();
  return {
    name: 'PGlite',
    async check(s, pattern, q) {
      const { rows } = await db.query<{ matched: boolean; contains: boolean }>(SQL, [s, pattern, q]);
      return rows[0] as { matched: boolean; contains: boolean };
    },
    close: () => db.close(),
  };
}

async function postgresEngine(url: string): Promise<Engine> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  return {
    name: 'PostgreSQL',
    async check(s, pattern, q) {
      const { rows } = await client.query<{ matched: boolean; contains: boolean }>(SQL, [s, pattern, q]);
      return rows[0] as { matched: boolean; contains: boolean };
    },
    close: () => client.end(),
  };
}

/** Text a database can store (no NUL, no lone surrogate), rich in LIKE's special characters. */
const textUnit = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom('%', '_', '\\', '\\\\', '\\%', 'a', 'A', 'b', 'B', ' ') },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }) },
);
const text = (maxLength: number) =>
  fc.string({ unit: textUnit, maxLength }).filter((s) => !s.includes('\0') && !/[\uD800-\uDFFF]/u.test(s));

const flipAsciiCase = (s: string, flips: boolean[]) =>
  [...s]
    .map((char, i) =>
      flips[i % flips.length]
        ? char === char.toLowerCase()
          ? char.toUpperCase()
          : char.toLowerCase()
        : char,
    )
    .join('');
const isAscii = (s: string) => [...s].every((char) => char.charCodeAt(0) < 0x80);

/** Texts to test a phrase against: some contain it (in other case), some nearly do, some are random. */
const candidates = (q: string) =>
  fc.tuple(
    fc
      .tuple(text(6), text(6), fc.array(fc.boolean(), { minLength: 1, maxLength: 8 }))
      .map(([prefix, suffix, flips]) => ({
        s: `${prefix}${flipAsciiCase(q, isAscii(q) ? flips : [false])}${suffix}`,
        contains: true,
      })),
    // q with its wildcards replaced: an unescaped pattern would still match these.
    fc.constantFrom('x', 'é', '', '%%').map((swap) => ({ s: q.replace(/[%_]/g, swap), contains: undefined })),
    text(12).map((s) => ({ s, contains: undefined })),
  );

describe('containsPattern', () => {
  const engines: Engine[] = [];
  before(async () => {
    engines.push(await pgliteEngine());
    if (process.env.DATABASE_URL) engines.push(await postgresEngine(process.env.DATABASE_URL));
  });
  after(async () => {
    for (const engine of engines) await engine.close();
  });

  test('ILIKE with the pattern matches exactly the texts that contain the phrase, ignoring case', async () => {
    const cases = text(8).chain((q) => fc.tuple(fc.constant(q), candidates(q)));
    await fc.assert(
      fc.asyncProperty(cases, async ([q, texts]) => {
        const pattern = containsPattern(q);
        for (const engine of engines) {
          for (const { s, contains } of texts) {
            const answer = await engine.check(s, pattern, q);
            const where = `${engine.name}: ${JSON.stringify(s)} ilike ${JSON.stringify(pattern)}`;
            assert.equal(answer.matched, answer.contains, where);
            if (contains) assert.equal(answer.matched, true, where);
            if (isAscii(s) && isAscii(q)) {
              assert.equal(answer.matched, s.toLowerCase().includes(q.toLowerCase()), where);
            }
          }
        }
      }),
      { numRuns: 200 },
    );
  });

  test('wildcards and backslashes in the phrase are literal', async () => {
    const cases: [string, string, boolean][] = [
      ['50%', 'Save 50% now', true],
      ['50%', '500 items', false],
      ['a_b', 'A_B', true],
      ['a_b', 'axb', false],
      ['\\', 'C:\\temp', true],
      ['\\', 'C:/temp', false],
      ['ends\\', 'ENDS\\', true],
      ['\\%', 'a\\%b', true],
      ['\\%', 'a\\b', false],
      ['', 'anything', true],
      ['Ünïcode', 'ünïcode', true],
    ];
    for (const engine of engines) {
      for (const [q, s, expected] of cases) {
        const { matched } = await engine.check(s, containsPattern(q), q);
        assert.equal(matched, expected, `${engine.name}: ${s} contains ${q}`);
      }
    }
  });

  test('the pattern is the phrase, escaped, between two %', () => {
    assert.equal(containsPattern('50%_off\\'), '%50\\%\\_off\\\\%');
    fc.assert(
      fc.property(fc.string(), (q) => {
        const inner = containsPattern(q).slice(1, -1);
        assert.equal(inner.replace(/\\(.)/gsu, '$1'), q);
        assert.ok(!/(^|[^\\])(\\\\)*[%_]/.test(inner), 'every wildcard is escaped');
      }),
    );
  });
});
