/**
 * SQL of runtime_workloads (the engine's state per workload container) and
 * runtime_container_instances. Writes are multi-row statements; states are large (up to a few
 * hundred KiB of JSON each), so their batches are bounded by size rather than by row count.
 */
import type { Executor } from '../../db/database.js';
import type { WorkloadContainerState } from '../../engines/runtime/index.js';
import { batches } from '../../ingest/batches.js';

/** Parameters of one state-writing statement stay under this many characters of JSON. */
const STATE_BATCH_CHARS = 8 * 1024 * 1024;
/** ... and this many states, each its own parameter (a statement takes at most 65,535). */
const STATE_BATCH_ROWS = 1000;

export interface StateWrite {
  id: string;
  clusterId: string;
  workloadKey: string;
  state: WorkloadContainerState;
}

export interface ContainerInstance {
  containerId: string;
  workloadId: string;
  clusterId: string;
  podName: string;
  firstSeen: string;
  lastSeen: string;
}

export async function loadStates(
  db: Executor,
  accountId: string,
  ids: string[],
): Promise<Map<string, WorkloadContainerState>> {
  if (ids.length === 0) return new Map();
  const { rows } = await db.query<{ id: string; state: string }>(
    'select id, state from runtime_workloads where account_id = $1 and id = any($2::uuid[])',
    [accountId, ids],
  );
  return new Map(rows.map((row) => [row.id, JSON.parse(row.state) as WorkloadContainerState]));
}

/** A stored state's version (migration 0043), and the state unless the caller holds that version. */
export interface VersionedState {
  version: string;
  state: WorkloadContainerState | undefined;
}

/**
 * The versions of `ids`' stored states, with each state parsed, except where the row is still at
 * the version `held` names for it: that state is not sent (modules/runtime/state-cache.ts). The
 * CASE keeps PostgreSQL from reading and decompressing the held states' values at all.
 */
export async function loadStatesUnlessHeld(
  db: Executor,
  accountId: string,
  ids: string[],
  held: { ids: string[]; versions: string[] },
): Promise<Map<string, VersionedState>> {
  if (ids.length === 0) return new Map();
  const { rows } = await db.query<{ id: string; version: string; state: string | null }>(
    `select w.id, w.state_version::text as version,
            case when w.state_version = h.version then null else w.state end as state
       from runtime_workloads w
       left join unnest($3::uuid[], $4::bigint[]) as h (id, version) on h.id = w.id
      where w.account_id = $1 and w.id = any($2::uuid[])`,
    [accountId, ids, held.ids, held.versions],
  );
  return new Map(
    rows.map((row) => [
      row.id,
      {
        version: row.version,
        state: row.state === null ? undefined : (JSON.parse(row.state) as WorkloadContainerState),
      },
    ]),
  );
}

export async function loadState(db: Executor, accountId: string, id: string) {
  return (await loadStates(db, accountId, [id])).get(id);
}

function* sizedBatches(writes: { write: StateWrite; json: string }[]) {
  let batch: typeof writes = [];
  let size = 0;
  for (const item of writes) {
    if (
      batch.length > 0 &&
      (size + item.json.length > STATE_BATCH_CHARS || batch.length >= STATE_BATCH_ROWS)
    ) {
      yield batch;
      batch = [];
      size = 0;
    }
    batch.push(item);
    size += item.json.length;
  }
  if (batch.length > 0) yield batch;
}

/**
 * The states travel as one text parameter each (`array[$13, $14, ...]`), not as one text[]
 * parameter: pg writes an array parameter as an array literal, escaping every quote of the JSON
 * (a copy of each string, and the server parses the literal back), which was the push's largest
 * single cost (docs/performance.md, "Runtime ingestion and the CSV export"). Returns the version
 * each state was stored at (set by migration 0043's trigger) and the length of its JSON.
 */
export async function saveStates(
  db: Executor,
  accountId: string,
  writes: StateWrite[],
  now: Date,
): Promise<Map<string, { version: string; chars: number }>> {
  const serialized = writes.map((write) => ({ write, json: JSON.stringify(write.state) }));
  const stored = new Map<string, { version: string; chars: number }>();
  for (const batch of sizedBatches(serialized)) {
    const col = <V>(pick: (w: StateWrite) => V) => batch.map((item) => pick(item.write));
    const states = batch.map((_, index) => `$${index + 13}::text`).join(', ');
    const { rows } = await db.query<{ id: string; version: string }>(
      `insert into runtime_workloads (account_id, id, cluster_id, workload_key, namespace, workload_kind,
         workload_name, container_name, baseline_captured_at, first_event_at, last_event_at, state,
         created_at, updated_at)
       select $1, v.id, v.cluster_id, v.workload_key, v.namespace, v.kind, v.name, v.container,
              v.captured, v.first_at, v.last_at, v.state, $2, $2
         from unnest($3::uuid[], $4::uuid[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[],
                     $10::timestamptz[], $11::timestamptz[], $12::timestamptz[], array[${states}])
              as v (id, cluster_id, workload_key, namespace, kind, name, container, captured, first_at,
                    last_at, state)
       on conflict (account_id, id) do update set
         baseline_captured_at = excluded.baseline_captured_at,
         first_event_at = excluded.first_event_at,
         last_event_at = excluded.last_event_at,
         state = excluded.state,
         updated_at = excluded.updated_at
       returning id, state_version::text as version`,
      [
        accountId,
        now,
        col((w) => w.id),
        col((w) => w.clusterId),
        col((w) => w.workloadKey),
        col((w) => w.state.key.namespace),
        col((w) => w.state.key.workloadKind),
        col((w) => w.state.key.workloadName),
        col((w) => w.state.key.containerName),
        col((w) => w.state.baselineCapturedAt),
        col((w) => w.state.firstEventAt),
        col((w) => w.state.lastEventAt),
        ...batch.map((item) => item.json),
      ],
    );
    const chars = new Map(batch.map((item) => [item.write.id, item.json.length]));
    for (const row of rows) stored.set(row.id, { version: row.version, chars: chars.get(row.id)! });
  }
  return stored;
}

export async function upsertInstances(db: Executor, accountId: string, instances: ContainerInstance[]) {
  for (const batch of batches(instances)) {
    const col = <V>(pick: (i: ContainerInstance) => V) => batch.map(pick);
    await db.query(
      `insert into runtime_container_instances (account_id, container_id, workload_id, cluster_id, pod_name,
         first_seen_at, last_seen_at)
       select $1, v.* from unnest($2::text[], $3::uuid[], $4::uuid[], $5::text[], $6::timestamptz[],
         $7::timestamptz[]) as v
       on conflict (account_id, container_id, workload_id) do update set
         pod_name = excluded.pod_name,
         first_seen_at = least(runtime_container_instances.first_seen_at, excluded.first_seen_at),
         last_seen_at = greatest(runtime_container_instances.last_seen_at, excluded.last_seen_at)`,
      [
        accountId,
        col((i) => i.containerId),
        col((i) => i.workloadId),
        col((i) => i.clusterId),
        col((i) => i.podName),
        col((i) => i.firstSeen),
        col((i) => i.lastSeen),
      ],
    );
  }
}

/**
 * Full inventory ids of containers a Falco alert named by their 12-character prefix, in one
 * cluster: the prefix is unique there in practice, and an ambiguous one stays as it is.
 */
export async function completeShortIds(
  db: Executor,
  accountId: string,
  clusterId: string,
  shortIds: string[],
): Promise<Map<string, string>> {
  if (shortIds.length === 0) return new Map();
  const { rows } = await db.query<{ short_id: string; container_id: string }>(
    `select left(container_id, 12) as short_id, min(container_id) as container_id
       from inventory_containers
      where account_id = $1 and cluster_id = $2 and left(container_id, 12) = any($3::text[])
      group by left(container_id, 12)
     having count(distinct container_id) = 1`,
    [accountId, clusterId, shortIds],
  );
  return new Map(rows.map((row) => [row.short_id, row.container_id]));
}
