/**
 * The `filters` grammar (DESIGN.md section 5): `key1:value1,key2:value2`. A value is everything
 * after the first `:` (so `image:nginx:1.25` works); `\,` is a literal comma and `\\` a literal
 * backslash. The same key twice means OR; different keys AND. Each endpoint allows a fixed set of
 * keys; any other key is a 400 naming it. An empty item (`a:1,,b:2`, a trailing comma) is ignored.
 *
 * @example
 *   parseFilters('severity:high,severity:critical,name:a\\,b', ['severity', 'name'])
 *   // Map { 'severity' => ['high', 'critical'], 'name' => ['a,b'] }
 */
import { ApiError } from './errors.js';

export type Filters<K extends string = string> = Map<K, string[]>;

function splitUnescaped(input: string): string[] {
  const parts: string[] = [];
  let current = '';
  for (let i = 0; i < input.length; i++) {
    const char = input[i];
    if (char === '\\' && (input[i + 1] === ',' || input[i + 1] === '\\')) {
      current += input[i + 1];
      i++;
    } else if (char === ',') {
      parts.push(current);
      current = '';
    } else {
      current += char;
    }
  }
  parts.push(current);
  return parts;
}

export function parseFilters<K extends string>(
  raw: string | undefined,
  allowed: readonly K[],
  param = 'filters',
): Filters<K> {
  const filters: Filters<K> = new Map();
  if (raw === undefined || raw === '') return filters;
  for (const part of splitUnescaped(raw)) {
    if (part.trim() === '') continue;
    const colon = part.indexOf(':');
    const key = colon < 0 ? '' : part.slice(0, colon).trim();
    if (key === '') {
      throw ApiError.invalidParam(param, 'invalid_format', `"${part}" is not of the form key:value`);
    }
    // The value is kept verbatim (spaces included): it is what the client asked to match.
    const value = part.slice(colon + 1);
    if (!(allowed as readonly string[]).includes(key)) {
      throw ApiError.invalidParam(
        param,
        'invalid_value',
        `unknown filter key "${key}"; allowed: ${allowed.join(', ') || '(none)'}`,
      );
    }
    const values = filters.get(key as K) ?? [];
    values.push(value);
    filters.set(key as K, values);
  }
  return filters;
}

/** The inverse of parseFilters, for clients and tests. */
export function formatFilters(filters: Iterable<[string, string[]]>): string {
  const escapeValue = (text: string) => text.replace(/\\/g, '\\\\').replace(/,/g, '\\,');
  const parts: string[] = [];
  for (const [key, values] of filters) for (const value of values) parts.push(`${key}:${escapeValue(value)}`);
  return parts.join(',');
}

/** A boolean filter value: `true` or `false`, anything else a 400. */
export function booleanFilter(
  key: string,
  values: string[] | undefined,
  param = 'filters',
): boolean | undefined {
  if (!values) return undefined;
  const distinct = new Set(values.map((v) => v.toLowerCase()));
  if ([...distinct].some((v) => v !== 'true' && v !== 'false')) {
    throw ApiError.invalidParam(param, 'invalid_value', `filter "${key}" takes true or false`);
  }
  return distinct.size === 1 ? distinct.has('true') : undefined; // true OR false: no constraint
}

/** A comma-joined list parameter (`container_ids=a,b`); empty items are dropped. */
export function parseList(raw: string | undefined): string[] {
  if (!raw) return [];
  return raw
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}
