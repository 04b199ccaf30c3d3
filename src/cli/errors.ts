/**
 * How the CLI fails: one line on stderr (`posture: <message>`) and an exit code, 2 for a usage
 * error (the command line itself is wrong, nothing was touched) and 1 for a runtime failure.
 * Known failures (ApiError, configuration, a locked data directory, constraint violations) keep
 * their message; anything else is reported by its message alone, never by a stack trace.
 */
import { ConfigError } from '../config.js';
import { DataDirLockedError } from '../db/data-dir-lock.js';
import { ApiError } from '../http/errors.js';

export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;

/** The command line is wrong: reported before the store is opened. */
export class UsageError extends Error {}

/** What PostgreSQL and PGlite both attach to a failed statement. */
interface DatabaseErrorFields {
  code: string;
  detail?: string;
  table?: string;
}

function databaseError(error: unknown): DatabaseErrorFields | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const code = (error as { code?: unknown }).code;
  // SQLSTATE codes are five characters; Node's own errors (ECONNREFUSED, ...) are longer.
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? (error as DatabaseErrorFields) : undefined;
}

export const isUniqueViolation = (error: unknown): boolean => databaseError(error)?.code === '23505';

/** `Key (tenant_id)=(<uuid>) is not present in table "tenants".` -> `tenant <uuid> does not exist` */
function missingReference(detail: string | undefined): string | undefined {
  const match = /^Key \((\w+)\)=\((.*)\) is not present in table "(\w+)"/.exec(detail ?? '');
  if (!match) return undefined;
  const [, , value, table] = match;
  return `${table?.replace(/s$/, '')} ${value} does not exist`;
}

/** One line, whatever the error: multi-line messages (configuration) are joined with `; `. */
export function describeError(error: unknown): string {
  // A heading line ending in ':' runs into its first item; the items are separated by '; '.
  const oneLine = (text: string) =>
    text
      .split('\n')
      .map((line) => line.trim())
      .filter(Boolean)
      .reduce(
        (joined, line) => (joined === '' ? line : `${joined}${joined.endsWith(':') ? ' ' : '; '}${line}`),
        '',
      );
  const known = [UsageError, ApiError, DataDirLockedError, ConfigError];
  if (known.some((kind) => error instanceof kind)) return oneLine((error as Error).message);
  const db = databaseError(error);
  if (db?.code === '23505') return oneLine(`already exists: ${db.detail ?? db.table ?? 'duplicate value'}`);
  if (db?.code === '23503') return missingReference(db.detail) ?? 'a referenced object does not exist';
  if (error instanceof AggregateError && !error.message) {
    // pg reports a refused connection to every address of a host name this way, message empty.
    return oneLine(error.errors.map(describeError).join('; ') || error.name);
  }
  if (error instanceof Error) {
    const code = (error as NodeJS.ErrnoException).code;
    const message = error.message || error.name;
    return oneLine(code && !message.includes(code) ? `${message} (${code})` : message);
  }
  return oneLine(String(error));
}

export const exitCodeOf = (error: unknown): number =>
  error instanceof UsageError ? EXIT_USAGE : EXIT_FAILURE;
