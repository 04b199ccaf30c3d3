/**
 * Harvests an account's real ids from its own list endpoints (every GET of /openapi.json whose
 * only path parameter is `{account_id}`), and finds, for every detail route, path parameters that
 * answer 2xx to the account's own admin. The isolation matrix then replays those requests as
 * other callers: a 404 there is meaningful because the same request is a hit for its owner.
 */
import type { TestApp } from '../support/harness.js';
import { fillOperationPath, type Operation, pathParameterNames } from './openapi-operations.js';

/** ids as they appear in answers: UUIDs (optionally `_<resourceVersion>`), 64-hex ids, key ids */
const ID_TOKEN =
  /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[0-9a-f]{64}|pak_[0-9a-f]{24}/g;

/** The id tokens of a text (an answer's body), for set lookups rather than thousands of includes. */
export const idTokens = (text: string): string[] => text.match(ID_TOKEN) ?? [];

export interface Harvest {
  /** field name -> string values seen under it (arrays under their parent's name) */
  byField: Map<string, Set<string>>;
  /** list path -> field name -> values, to pick a detail route's ids from its own list first */
  byList: Map<string, Map<string, Set<string>>>;
  /** every id token seen */
  ids: Set<string>;
}

function collect(value: unknown, field: string, into: Map<string, Set<string>>): void {
  if (typeof value === 'string') {
    if (value.length > 0 && value.length <= 200) {
      const values = into.get(field) ?? new Set<string>();
      values.add(value);
      into.set(field, values);
    }
  } else if (Array.isArray(value)) {
    for (const item of value) collect(item, field, into);
  } else if (value && typeof value === 'object') {
    for (const [key, inner] of Object.entries(value)) collect(inner, key, into);
  }
}

const listQuery = (op: Operation): string => {
  const names = new Set(op.parameters.map((p) => p.name));
  const query = [names.has('limit') ? 'limit=1000' : '', names.has('page_size') ? 'page_size=1000' : ''];
  return query.filter(Boolean).join('&');
};

/** GET routes naming no object but the account or tenant: the lists an owner reads. */
export const listOperations = (operations: Operation[]) =>
  operations.filter(
    (op) =>
      op.method === 'GET' &&
      !op.public &&
      pathParameterNames(op.path).every((name) => name === 'account_id' || name === 'tenant_id'),
  );

/**
 * `protect`: values never to offer as a path value (the keys whose sessions the suite uses: a
 * legitimate revoke of one would end a caller mid-run).
 */
export async function harvestAccount(
  t: TestApp,
  token: string,
  scope: { accountId: string; tenantId: string },
  operations: Operation[],
  protect: ReadonlySet<string>,
): Promise<Harvest> {
  const harvest: Harvest = { byField: new Map(), byList: new Map(), ids: new Set() };
  for (const op of listOperations(operations)) {
    const query = listQuery(op);
    const values = { account_id: scope.accountId, tenant_id: scope.tenantId };
    const url = fillOperationPath(op.path, values) + (query ? `?${query}` : '');
    const res = await t.request({ method: 'GET', url, token });
    if (res.status >= 300 || typeof res.body !== 'object') continue;
    const fields = new Map<string, Set<string>>();
    collect(res.body, '', fields);
    for (const values of fields.values()) for (const value of protect) values.delete(value);
    harvest.byList.set(op.path, fields);
    for (const [field, values] of fields) {
      const all = harvest.byField.get(field) ?? new Set<string>();
      for (const value of values) all.add(value);
      harvest.byField.set(field, all);
    }
    for (const id of idTokens(res.text)) if (!protect.has(id)) harvest.ids.add(id);
  }
  return harvest;
}

/**
 * Candidate values for a path parameter: ids of the list the parameter indexes first (the path up
 * to it, or any list ending with the same collection name), then every value seen under its name,
 * then every uid and id.
 */
export function candidatesFor(harvest: Harvest, op: Operation, parameter: string): string[] {
  const prefix = op.path.slice(0, op.path.indexOf(`/{${parameter}}`));
  const collection = prefix.slice(prefix.lastIndexOf('/'));
  const lists = [...harvest.byList.entries()]
    .filter(([path]) => path === prefix || path.endsWith(collection))
    .map(([, fields]) => fields);
  const named = (fields: Map<string, Set<string>> | undefined, name: string) => [
    ...(fields?.get(name) ?? []),
  ];
  const ordered = [
    ...lists.flatMap((fields) => [
      ...named(fields, parameter),
      ...named(fields, 'id'),
      ...named(fields, 'uid'),
    ]),
    ...named(harvest.byField, parameter),
    ...named(harvest.byField, `${parameter}s`),
    ...named(harvest.byField, 'uid'),
    ...named(harvest.byField, 'id'),
  ];
  return [...new Set(ordered)];
}

export interface DetailHit {
  op: Operation;
  values: Record<string, string>;
}

/**
 * For each GET detail route, path values that answer 2xx to the owner: tries the candidates in
 * order, then random combinations, within a bounded number of requests.
 */
export async function findDetailHits(
  t: TestApp,
  token: string,
  scope: { accountId: string; tenantId: string },
  operations: Operation[],
  harvest: Harvest,
  random: () => number,
  maxTries = 60,
): Promise<{ hits: DetailHit[]; misses: string[] }> {
  const hits: DetailHit[] = [];
  const misses: string[] = [];
  for (const op of operations) {
    const names = pathParameterNames(op.path);
    if (op.method !== 'GET' || op.public || names.length === 0 || names.join() === 'account_id') continue;
    const pools = Object.fromEntries(names.map((name) => [name, candidatesFor(harvest, op, name)]));
    pools.account_id = [scope.accountId];
    pools.tenant_id = [scope.tenantId];
    let found: Record<string, string> | undefined;
    for (let attempt = 0; attempt < maxTries && !found; attempt++) {
      const values = Object.fromEntries(
        names.map((name) => {
          const pool = pools[name] ?? [];
          // the first tries walk the best candidates in order, later ones pick at random
          const index =
            attempt < pool.length && attempt < maxTries / 2 ? attempt : Math.floor(random() * pool.length);
          return [name, pool[index] ?? ''];
        }),
      );
      const res = await t.request({ method: 'GET', url: fillOperationPath(op.path, values), token });
      if (res.status < 300) found = values;
    }
    if (found) hits.push({ op, values: found });
    else misses.push(`${op.method} ${op.path}`);
  }
  return { hits, misses };
}
