/**
 * Applies a parsed runtime push to one cluster inside the caller's transaction: the affected
 * workload containers' states are loaded (from the server's state cache where it holds them at
 * their stored version), the engine applies the events, and the states, their
 * container instances, newly captured baselines, insights and HTTP observations are written.
 *
 * @example
 *   await db.transaction((tx) => applyRuntimePush(tx, { accountId, clusterId, ... }, parsed.events, cache));
 */
import type { Executor } from '../../db/database.js';
import {
  advanceState,
  groupByWorkloadContainer,
  mergeHttpObservations,
  observeHttpRequests,
  type RuntimeEvent,
  shouldRaiseInsight,
  type WorkloadContainerState,
  type WorkloadGroup,
} from '../../engines/runtime/index.js';
import { stableId } from '../../ingest/kubernetes/inventory.js';
import * as baselines from './baseline-repository.js';
import { inventoryContainerId, isShortId } from './container-ids.js';
import { baselineRow, type DerivedContext, insightIdOf, insightWrite, workloadIdOf } from './derived-rows.js';
import * as http from './http-repository.js';
import * as insights from './insight-repository.js';
import { engineOptionsOf, type RuntimeSettings } from './settings-service.js';
import type { StateCache } from './state-cache.js';
import * as workloads from './workload-repository.js';

export interface PushScope {
  accountId: string;
  clusterId: string;
  /** the user whose push this is: created_by of the baselines it captures */
  userId: string;
  settings: RuntimeSettings;
  now: Date;
}

export interface PushOutcome {
  workloadContainers: number;
  baselinesCaptured: number;
  driftEvents: number;
  insights: number;
  httpObservations: number;
  /** insights whose analysis changed (or that have none from the LLM yet), most severe first */
  changedInsights: { id: string; digest: string }[];
  /** the states the push stored, for the state cache once its transaction has committed */
  storedStates: { id: string; version: string; chars: number; state: WorkloadContainerState }[];
}

interface Change {
  id: string;
  group: WorkloadGroup;
  /** what the push's outcome compares with the state before it (the state itself is advanced in place) */
  before: { baselineCapturedAt: string | null; driftEvents: number } | null;
  after: WorkloadContainerState;
}

/** Per container instance of a group: first and last event time and the latest pod name. */
function instancesOf(change: Change, clusterId: string, complete: (id: string) => string) {
  const byId = new Map<string, workloads.ContainerInstance>();
  for (const event of change.group.events) {
    const containerId = complete(inventoryContainerId(event.container.id));
    const at = event.timestamp;
    const seen = byId.get(containerId);
    if (!seen) {
      byId.set(containerId, {
        containerId,
        workloadId: change.id,
        clusterId,
        podName: event.kubernetes.pod,
        firstSeen: at,
        lastSeen: at,
      });
    } else {
      if (at < seen.firstSeen) seen.firstSeen = at;
      if (at >= seen.lastSeen) {
        seen.lastSeen = at;
        seen.podName = event.kubernetes.pod;
      }
    }
  }
  return [...byId.values()];
}

/** Falco names a container by a 12-character prefix when it lacks the full id: ask the inventory. */
async function idCompleter(tx: Executor, scope: PushScope, events: readonly RuntimeEvent[]) {
  const short = new Set<string>();
  for (const event of events) {
    const id = inventoryContainerId(event.container.id);
    if (isShortId(id)) short.add(id);
  }
  const full = await workloads.completeShortIds(tx, scope.accountId, scope.clusterId, [...short]);
  return (id: string) => full.get(id) ?? id;
}

/**
 * Upserts the insights of changed states that raise one; returns those whose analysis changed, for
 * the LLM queue. Shared with the learning-window sweep (window-sweep.ts).
 */
export async function writeInsights(
  tx: Executor,
  scope: Pick<PushScope, 'accountId'>,
  raising: Pick<Change, 'id' | 'after'>[],
  contexts: Map<string, DerivedContext>,
) {
  const heads = await insights.findHeads(
    tx,
    scope.accountId,
    raising.map((change) => insightIdOf(change.id)),
  );
  const rows = raising.map((change) =>
    insightWrite(change.after, contexts.get(change.id)!, heads.get(insightIdOf(change.id))),
  );
  await insights.upsertInsights(tx, scope.accountId, rows);
  return rows
    .filter((row) => {
      const head = heads.get(row.id);
      return !head?.has_llm_analysis || head.analysis_digest !== row.analysis_digest;
    })
    .sort((a, b) => b.severity_rank - a.severity_rank)
    .map((row) => ({ id: row.id, digest: row.analysis_digest }));
}

async function writeObservations(tx: Executor, scope: PushScope, events: readonly RuntimeEvent[]) {
  const observed = observeHttpRequests(events, {
    clusterId: scope.clusterId,
    trustedPrefixes: scope.settings.trustedPrefixes,
  }).map((observation) => ({
    ...observation,
    id: stableId('runtime-http', scope.accountId, observation.key),
  }));
  const stored = await http.findObservations(
    tx,
    scope.accountId,
    observed.map((o) => o.id),
  );
  const merged = observed.map((observation) => {
    const previous = stored.get(observation.id);
    if (!previous) return observation;
    const asObservation = {
      ...previous,
      key: observation.key,
      first_seen_at: new Date(previous.first_seen_at).toISOString(),
      last_seen_at: new Date(previous.last_seen_at).toISOString(),
    };
    return { ...mergeHttpObservations(asObservation, observation), id: observation.id };
  });
  await http.upsertObservations(tx, scope.accountId, merged);
  return merged.length;
}

/**
 * The stored states of `ids`: those `cache` holds at their row's version come from it, the rest
 * are read and parsed. Either way each is this push's own object (the cache lets go of what it
 * gives), which the engine may advance in place rather than copy.
 */
async function statesBefore(tx: Executor, accountId: string, ids: string[], cache: StateCache) {
  const stored = await workloads.loadStatesUnlessHeld(tx, accountId, ids, cache.heldVersions(ids));
  const states = new Map<string, WorkloadContainerState>();
  const lost: string[] = [];
  for (const [id, row] of stored) {
    // Taken even when the row moved on: that copy is stale and leaves the cache.
    const held = cache.take(id, row.version);
    const state = row.state ?? held;
    if (state) states.set(id, state);
    else lost.push(id);
  }
  // Only if the cache let go of a state between the two calls (it is per server, and pushes to a
  // cluster hold its lock): read those as if never held.
  for (const [id, state] of await workloads.loadStates(tx, accountId, lost)) states.set(id, state);
  return states;
}

export async function applyRuntimePush(
  tx: Executor,
  scope: PushScope,
  events: readonly RuntimeEvent[],
  cache: StateCache,
): Promise<PushOutcome> {
  const options = engineOptionsOf(scope.settings);
  const groups = [...groupByWorkloadContainer(events, scope.clusterId).values()];
  const ids = groups.map((group) => workloadIdOf(scope.accountId, group.id));
  const previous = await statesBefore(tx, scope.accountId, ids, cache);
  const changes: Change[] = groups.map((group, index) => {
    const id = ids[index]!;
    const state = previous.get(id) ?? null;
    const before = state && {
      baselineCapturedAt: state.baselineCapturedAt,
      driftEvents: state.ongoing.driftEvents,
    };
    return { id, group, before, after: advanceState(state, group.key, group.events, options) };
  });
  const stored = await workloads.saveStates(
    tx,
    scope.accountId,
    changes.map((c) => ({ id: c.id, clusterId: scope.clusterId, workloadKey: c.group.id, state: c.after })),
    scope.now,
  );

  const complete = await idCompleter(tx, scope, events);
  await workloads.upsertInstances(
    tx,
    scope.accountId,
    changes.flatMap((change) => instancesOf(change, scope.clusterId, complete)),
  );
  const contexts = new Map(
    changes.map((change): [string, DerivedContext] => [
      change.id,
      {
        accountId: scope.accountId,
        clusterId: scope.clusterId,
        workloadId: change.id,
        containerId: complete(inventoryContainerId(change.after.container.id)),
        now: scope.now,
      },
    ]),
  );

  const captured = changes.filter((c) => !c.before?.baselineCapturedAt && c.after.baselineCapturedAt);
  const window = {
    seconds: scope.settings.learningWindowSeconds,
    maxEvents: scope.settings.learningWindowMaxEvents,
  };
  await baselines.insertBaselines(
    tx,
    scope.accountId,
    captured.map((c) => baselineRow(c.after, contexts.get(c.id)!, window, scope.userId)),
  );

  const raising = changes.filter((change) => shouldRaiseInsight(change.after));
  const changedInsights = await writeInsights(tx, scope, raising, contexts);
  const httpObservations = await writeObservations(tx, scope, events);
  return {
    workloadContainers: changes.length,
    baselinesCaptured: captured.length,
    driftEvents: changes.reduce(
      (sum, c) => sum + c.after.ongoing.driftEvents - (c.before?.driftEvents ?? 0),
      0,
    ),
    insights: raising.length,
    httpObservations,
    changedInsights,
    storedStates: changes.map((change) => ({
      id: change.id,
      ...stored.get(change.id)!,
      state: change.after,
    })),
  };
}
