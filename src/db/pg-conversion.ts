/**
 * How values cross between JavaScript and PostgreSQL, the same on both engines: node-postgres's
 * own conversions. Parameters go as pg sends them (Dates, arrays, Buffers, JSON) and rows come
 * back through pg's type parsers, except that counts (int8) and numerics come back as JS numbers,
 * as every repository expects. The PostgreSQL pool (postgres.ts, scoped-statement.ts) and PGlite
 * (pglite-statements.ts) both use these, so a row reads the same whichever engine produced it.
 */
import { createRequire } from 'node:module';
import pg from 'pg';

const TYPE_OIDS = { int8: 20, numeric: 1700 } as const;
const parseNumber = (value: string): number => Number(value);

/** pg's type parsers, but counts (int8) and numerics as JS numbers; timestamps come back as Date. */
export const ROW_TYPES = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === TYPE_OIDS.int8 || oid === TYPE_OIDS.numeric) return parseNumber;
    return pg.types.getTypeParser(oid, format);
  },
} as pg.CustomTypesConfig;

/** pg's own conversion of a parameter value for Bind (not part of pg's typed API). */
export const { prepareValue } = createRequire(import.meta.url)('pg/lib/utils.js') as {
  prepareValue(value: unknown): unknown;
};
