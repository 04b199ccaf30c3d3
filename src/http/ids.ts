import { randomUUID } from 'node:crypto';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Ids are UUIDs; anything else cannot name an object, so lookups answer 404 without a query. */
export const isUuid = (value: string): boolean => UUID.test(value);

export const newId = (): string => randomUUID();

/** Timestamps leave the API as RFC 3339 UTC with milliseconds. */
export function iso(value: Date | string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  return (value instanceof Date ? value : new Date(value)).toISOString();
}
