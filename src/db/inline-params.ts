/**
 * A statement's `$n` placeholders replaced by its parameters as SQL literals, for the statements
 * PostgreSQL will not bind parameters in: `COPY (query) TO STDOUT` (the CVE report's CSV), and the
 * benchmark's pgbench scripts (bench/ceilings/sql-capture.ts). Strings go through pg's
 * escapeLiteral (quotes doubled, an E'' literal when a backslash is present), arrays through the
 * array literal pg itself would send, other objects as their JSON (as pg sends them), so a value
 * can never become SQL; a value of a kind with no literal here is refused rather than guessed at.
 *
 * The SQL is Posture's own, built with `Where` (its only `$` are placeholders); a placeholder
 * without its parameter is a bug of the caller and throws.
 *
 * @example
 *   inlineParams('a = $1 and b = any($2::text[])', ['x', ["it's"]])
 *   // "a = 'x' and b = any('{\"it''s\"}'::text[])"
 */
import pg from 'pg';
import { arrayLiteral } from './array-literal.js';

const isArrayElement = (value: unknown) =>
  value === null || typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value));

export function sqlLiteral(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'string') return pg.escapeLiteral(value);
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if ((typeof value === 'number' && Number.isFinite(value)) || typeof value === 'bigint') {
    // Parenthesised when negative: `-2147483648::int` casts 2147483648 first, and overflows.
    return value < 0 ? `(${value})` : String(value);
  }
  if (value instanceof Date) return pg.escapeLiteral(value.toISOString());
  if (Buffer.isBuffer(value)) return `'\\x${value.toString('hex')}'::bytea`;
  if (Array.isArray(value) && value.every(isArrayElement)) {
    return pg.escapeLiteral(arrayLiteral(value as (string | number | null)[], (element) => element));
  }
  // pg sends any other object as its JSON.
  if (typeof value === 'object' && !Array.isArray(value)) return pg.escapeLiteral(JSON.stringify(value));
  throw new Error(`inlineParams: no SQL literal for ${typeof value} ${JSON.stringify(value)}`);
}

export function inlineParams(sql: string, params: readonly unknown[]): string {
  return sql.replace(/\$(\d+)/g, (_placeholder, index: string) => {
    const position = Number(index) - 1;
    if (position < 0 || position >= params.length)
      throw new Error(`inlineParams: no parameter for $${index}`);
    return sqlLiteral(params[position]);
  });
}
