/**
 * A request target as a template: numeric, UUID, long hex, date and random-token path segments
 * become `{id}` / `{date}`, segments holding personal data become the label's placeholder
 * (`{email}`), query values become `{value}` or the label's placeholder, and query parameters are
 * sorted. The template is what is stored: the matched personal data never is.
 *
 * @example
 *   templateRequestTarget('/users/42/orders/7f1c2a3b-9d4e-4f5a-8b6c-1d2e3f4a5b6c?email=a%40b.io&page=2')
 *   // { path: '/users/{id}/orders/{id}?email={email}&page={value}', piiLabels: ['email'] }
 */
import { detectPii, PII_LABELS, type PiiLabel } from './pii.js';
import { isRandomToken } from './variable-tokens.js';

export interface TemplatedTarget {
  path: string;
  piiLabels: PiiLabel[];
}

const MAX_TEMPLATE_LENGTH = 2048;
const ID_SEGMENT = [
  /^\d+$/,
  /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i,
  /^(?=[0-9a-f]*\d)[0-9a-f]{8,}$|^[0-9a-f]{16,}$/i,
];
const DATE_SEGMENT = /^\d{4}-\d{2}-\d{2}(?:T[\d:.]+(?:Z|[+-]\d{2}:?\d{2})?)?$/i;

function decode(text: string, plusIsSpace: boolean): string {
  const spaced = plusIsSpace ? text.replace(/\+/g, ' ') : text;
  try {
    return decodeURIComponent(spaced);
  } catch {
    return spaced; // a stray `%` is text, not an error
  }
}

function templateSegment(segment: string, labels: Set<PiiLabel>): string {
  if (segment === '') return segment;
  const decoded = decode(segment, false);
  const found = detectPii(decoded);
  if (found.length > 0) {
    for (const label of found) labels.add(label);
    return `{${found[0]}}`;
  }
  if (ID_SEGMENT.some((pattern) => pattern.test(decoded))) return '{id}';
  if (DATE_SEGMENT.test(decoded)) return '{date}';
  if (isRandomToken(decoded)) return '{id}';
  return segment;
}

function templateQuery(query: string, labels: Set<PiiLabel>): string {
  const pairs = new Set<string>();
  for (const part of query.split('&')) {
    if (part === '') continue;
    const at = part.indexOf('=');
    const rawName = at === -1 ? part : part.slice(0, at);
    const name = decode(rawName, true);
    const nameLabels = detectPii(name);
    if (nameLabels.length > 0) {
      for (const label of nameLabels) labels.add(label);
      pairs.add(`{${nameLabels[0]}}`);
      continue;
    }
    if (at === -1) {
      pairs.add(rawName);
      continue;
    }
    const valueLabels = detectPii(decode(part.slice(at + 1), true), name);
    for (const label of valueLabels) labels.add(label);
    pairs.add(`${rawName}={${valueLabels[0] ?? 'value'}}`);
  }
  return [...pairs].sort().join('&');
}

export function templateRequestTarget(target: string): TemplatedTarget {
  const withoutFragment = target.split('#')[0] ?? '';
  const at = withoutFragment.indexOf('?');
  const rawPath = at === -1 ? withoutFragment : withoutFragment.slice(0, at);
  const rawQuery = at === -1 ? '' : withoutFragment.slice(at + 1);
  const labels = new Set<PiiLabel>();
  const path = rawPath
    .split('/')
    .map((segment) => templateSegment(segment, labels))
    .join('/');
  const query = templateQuery(rawQuery, labels);
  const template = query === '' ? path || '/' : `${path || '/'}?${query}`;
  return {
    path: template.length > MAX_TEMPLATE_LENGTH ? `${template.slice(0, MAX_TEMPLATE_LENGTH - 1)}…` : template,
    piiLabels: PII_LABELS.filter((label) => labels.has(label)),
  };
}
