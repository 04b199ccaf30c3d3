/**
 * Option parsers: every value is checked while the command line is parsed, before the store is
 * opened, so a typo never half-runs a command. A bad value becomes commander's "invalid argument"
 * usage error naming the option.
 *
 * @example
 *   new Option('--tenant <tenant_id>').argParser(uuid)
 */
import { InvalidArgumentError } from 'commander';
import { ROLES, type Role } from '../http/actor.js';
import { isUuid } from '../http/ids.js';
import { parseTime } from '../http/time.js';

/** The HTTP API caps names at 200 characters; the CLI holds the same line. */
const MAX_NAME_LENGTH = 200;

export function uuid(value: string): string {
  if (!isUuid(value)) throw new InvalidArgumentError('must be a UUID.');
  return value.toLowerCase();
}

export function name(value: string): string {
  const trimmed = value.trim();
  if (trimmed.length === 0) throw new InvalidArgumentError('must not be empty.');
  if (trimmed.length > MAX_NAME_LENGTH) {
    throw new InvalidArgumentError(`must be at most ${MAX_NAME_LENGTH} characters.`);
  }
  return trimmed;
}

export function email(value: string): string {
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value) || value.length > 320) {
    throw new InvalidArgumentError('must be an email address such as ops@example.com.');
  }
  return value;
}

export function role(value: string): Role {
  if (!(ROLES as readonly string[]).includes(value)) {
    throw new InvalidArgumentError(`must be one of ${ROLES.join(', ')}.`);
  }
  return value as Role;
}

/** An expiry: an absolute RFC 3339 instant in the future (`now-15m` forms make no sense here). */
export function futureTimestamp(value: string, now: number = Date.now()): Date {
  const time = value.startsWith('now') ? undefined : tryParseTime(value, now);
  if (!time) throw new InvalidArgumentError('must be an RFC 3339 timestamp such as 2027-01-31T00:00:00Z.');
  if (time.getTime() <= now) throw new InvalidArgumentError('must be in the future.');
  return time;
}

function tryParseTime(value: string, now: number): Date | undefined {
  try {
    return parseTime(value, 'expires', now);
  } catch {
    return undefined;
  }
}
