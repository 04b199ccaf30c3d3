/**
 * Builds one isolation-matrix request from random choices: an operation of /openapi.json, path
 * values (the victim's real ids, the caller's own, or a mix), query parameters carrying the
 * victim's ids (filters `key:<victim value>` for the documented keys), and a body (ingestion
 * bodies name the victim's uids and container ids).
 */
import type { TestRequest } from '../support/harness.js';
import type { Harvest } from './harvest.js';
import { fillOperationPath, type Operation, pathParameterNames } from './openapi-operations.js';

/** A deterministic picker over numbers drawn by fast-check, so a failing run replays from its seed. */
export class Picks {
  private next = 0;
  constructor(private readonly numbers: readonly number[]) {}
  int(bound: number): number {
    const value = this.numbers[this.next++ % this.numbers.length] ?? 0;
    return bound <= 0 ? 0 : value % bound;
  }
  chance(percent: number): boolean {
    return this.int(100) < percent;
  }
  one<T>(items: readonly T[]): T | undefined {
    return items.length === 0 ? undefined : items[this.int(items.length)];
  }
}

export interface Side {
  accountId: string;
  tenantId: string;
  clusterId: string;
  harvest: Harvest;
  /** path values that answer 2xx to the side's owner, per operation key */
  hits: Map<string, Record<string, string>>;
}

export const operationKey = (op: Operation) => `${op.method} ${op.path}`;

const fieldValues = (harvest: Harvest, name: string): string[] => [
  ...(harvest.byField.get(name) ?? harvest.byField.get(name.replace(/s$/, '')) ?? []),
];

function pathValues(op: Operation, side: Side, picks: Picks): Record<string, string> {
  const hit = side.hits.get(operationKey(op));
  const values: Record<string, string> = { ...hit };
  for (const name of pathParameterNames(op.path)) {
    if (name === 'account_id') values[name] = side.accountId;
    else if (name === 'tenant_id') values[name] = side.tenantId;
    else if (name === 'cluster_id' && !hit) values[name] = side.clusterId;
    else if (!values[name] || picks.chance(20)) {
      values[name] = picks.one(fieldValues(side.harvest, name)) ?? picks.one([...side.harvest.ids]) ?? 'x';
    }
  }
  return values;
}

function queryValue(op: Operation, name: string, victim: Harvest, picks: Picks): string {
  const parameter = op.parameters.find((p) => p.name === name);
  const schema = parameter?.schema ?? {};
  const anyId = () => picks.one([...victim.ids]) ?? 'x';
  if (name === 'filters') {
    const key = picks.one(op.filterKeys) ?? 'cluster_id';
    return `${key}:${picks.one(fieldValues(victim, key)) ?? anyId()}`;
  }
  if (name === 'sort') return `${picks.one(op.sortFields) ?? 'name'}:${picks.chance(50) ? 'asc' : 'desc'}`;
  if (Array.isArray(schema.enum)) return String(picks.one(schema.enum));
  if (schema.type === 'integer' || schema.type === 'number') {
    return String(/page$|^page_size|limit/.test(name) ? 1 + picks.int(100) : picks.int(3));
  }
  if (schema.type === 'boolean') return picks.chance(50) ? 'true' : 'false';
  if (/^(from|to)/.test(name)) return picks.one(['now-30d', 'now', '2020-01-01T00:00:00Z']) ?? 'now';
  if (name === 'q') return picks.one(fieldValues(victim, 'name')) ?? anyId();
  if (name === 'columns') return 'cve_name;cluster_id';
  return picks.one(fieldValues(victim, name)) ?? anyId();
}

/** Bodies that name the victim's objects; `null` when the operation takes none. */
function body(
  op: Operation,
  own: Side,
  victim: Harvest,
  picks: Picks,
): (Pick<TestRequest, 'payload' | 'headers'> & { unknown?: boolean }) | null {
  const uid = picks.one(fieldValues(victim, 'uid')) ?? 'x';
  const container = picks.one(fieldValues(victim, 'container_id')) ?? 'x';
  const accountId = picks.one([own.accountId, ...fieldValues(victim, 'account_id')]) ?? own.accountId;
  const json = (value: unknown) => ({
    payload: JSON.stringify(value),
    headers: { 'content-type': 'application/json' },
  });
  if (op.path.endsWith('/ingest/kubernetes')) {
    return json({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'probe', namespace: 'default', uid, resourceVersion: String(1 + picks.int(1000)) },
      data: { owner: uid },
    });
  }
  if (op.path.endsWith('/ingest/runtime')) {
    return {
      payload: JSON.stringify({
        type: 'process_exec',
        timestamp: '2025-03-03T09:00:00Z',
        container: { id: `containerd://${container}`, name: 'app', image_name: 'app:1' },
        kubernetes: { namespace: 'default', pod: 'app-0' },
        process: { pid: 1, ppid: 0, comm: 'sh', args: [], uid: 0, gid: 0 },
      }),
      headers: { 'content-type': 'application/x-ndjson' },
    };
  }
  if (op.path.endsWith('/ingest/vulnerabilities')) {
    return json({
      bomFormat: 'CycloneDX',
      specVersion: '1.5',
      metadata: { component: { type: 'container', name: 'probe', version: `sha256:${container}` } },
      components: [],
    });
  }
  if (op.path === '/accounts/access_keys' && op.method === 'POST') {
    return json({ name: 'probe', scope: 'account', account_id: accountId });
  }
  if (op.path.endsWith('/roles') && op.method === 'PUT') {
    return json({
      roles: [
        picks.chance(50)
          ? { level: 'tenant', name: 'admin' }
          : { level: 'account', account_id: accountId, name: 'admin' },
      ],
    });
  }
  if (op.path.endsWith('/clusters') && op.method === 'POST') return json({ name: 'probe' });
  if (op.path.endsWith('/registries') && op.method === 'POST') {
    return json({ type: 'generic', repository_name: 'registry.example.com/probe' });
  }
  if (op.path.endsWith('/actions') && op.method === 'POST') {
    return json({
      action_type: 'terminate_pod',
      target_namespace: 'payments',
      target_pod_name: 'debug-shell',
    });
  }
  if (op.path.endsWith('/runtime_settings') && op.method === 'PUT') {
    return json({ learning_window_seconds: 600, learning_window_max_events: null, trusted_ip_prefixes: [] });
  }
  // a body this builder does not know: an empty object, which the schema may refuse (400)
  return op.bodyTypes.length > 0 ? { ...json({}), unknown: true } : null;
}

export type Aim = 'victim' | 'mixed' | 'own';

export interface Attempt {
  request: TestRequest;
  aim: Aim;
  pathValues: Record<string, string>;
  /** random query parameters or a body the builder does not know: a 400 may come first */
  mayBeInvalid: boolean;
  /** victim ids the body carried (an accepted push makes them the caller's own data) */
  bodyIds: string[];
}

export function buildAttempt(op: Operation, own: Side, victim: Side, picks: Picks, aim: Aim): Attempt {
  const filled =
    aim === 'own'
      ? pathValues(op, own, picks)
      : aim === 'victim'
        ? pathValues(op, victim, picks)
        : { ...pathValues(op, victim, picks), account_id: own.accountId, tenant_id: own.tenantId };
  // only the path's own parameters count (a mix adds account_id and tenant_id to every path)
  const values = Object.fromEntries(pathParameterNames(op.path).map((name) => [name, filled[name] ?? '']));
  const query: string[] = [];
  for (const parameter of op.parameters) {
    if (parameter.in !== 'query' || !picks.chance(35)) continue;
    query.push(
      `${parameter.name}=${encodeURIComponent(queryValue(op, parameter.name, victim.harvest, picks))}`,
    );
  }
  const url = fillOperationPath(op.path, values) + (query.length > 0 ? `?${query.join('&')}` : '');
  const content = body(op, own, victim.harvest, picks);
  const bodyIds = content?.payload
    ? [...String(content.payload).matchAll(/[0-9a-f]{64}|[0-9a-f-]{36}/g)].map((m) => m[0])
    : [];
  return {
    request: {
      method: op.method,
      url,
      ...(content ? { payload: content.payload as string, headers: content.headers ?? {} } : {}),
    },
    aim,
    pathValues: values,
    mayBeInvalid: query.length > 0 || content?.unknown === true,
    bodyIds,
  };
}
