/**
 * Command results: JSON with `--json` (one object, stable field names, for scripts), otherwise an
 * aligned `field: value` block under a one-line heading for people.
 *
 * @example
 *   printResult(io, { account_id, name }, { json: false, heading: 'Account created.' });
 */
import type { CliIo } from './store.js';

type Value = string | number | boolean | null | undefined | readonly string[];

export interface PrintOptions {
  json?: boolean | undefined;
  heading: string;
}

export function printResult(io: Pick<CliIo, 'stdout'>, result: Record<string, Value>, options: PrintOptions) {
  if (options.json) {
    io.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    return;
  }
  const fields = Object.entries(result).filter(([, value]) => value !== undefined);
  const width = Math.max(0, ...fields.map(([field]) => field.length)) + 1;
  const lines = fields.map(([field, value]) => `  ${`${field}:`.padEnd(width)} ${show(value)}`);
  io.stdout.write(`${[options.heading, ...lines].join('\n')}\n`);
}

function show(value: Value): string {
  if (value === null) return '-';
  if (Array.isArray(value)) return value.length > 0 ? value.join(', ') : '-';
  return String(value);
}

/** Said wherever a secret is printed: it exists nowhere else afterwards (only its keyed hash does). */
export const SECRET_SHOWN_ONCE = 'The secret key is shown once and cannot be recovered; store it now.';
