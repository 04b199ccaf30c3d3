/**
 * The learning-window sweep: captures the baselines of workload containers whose window has passed
 * on the wall clock while no event of theirs arrived to close it (a push closes a window only when
 * one of the workload container's own later events comes in). docs/runtime-events.md section 4.
 *
 * Per account, in one transaction: the runtime lock of each cluster involved (the one pushes take,
 * so a sweep and a push of the same workload container are serialised), the states re-read and
 * locked `for update`, `captureIfWindowElapsed`, then the states, the baselines and the insights of
 * workload containers that already have one are written as a push writes them. Bounded per run
 * and fair across accounts; one account's failure is logged and does not stop the others.
 *
 * @example
 *   const sweep = createWindowSweep({ db, llmQueue: null, periodSeconds: 60 });
 *   await sweep.sweep(new Date('2025-06-01T09:01:00Z')); // tests: an explicit clock
 *   registerWindowSweep(app, sweep);                      // the server: every periodSeconds
 */
import type { Database, Executor } from '../../db/database.js';
import { withSystemScope } from '../../db/scope.js';
import {
  captureIfWindowElapsed,
  shouldRaiseInsight,
  type WorkloadContainerState,
} from '../../engines/runtime/index.js';
import type { Api } from '../../http/api.js';
import { writeInsights } from './apply-push.js';
import * as baselines from './baseline-repository.js';
import { inventoryContainerId, isShortId } from './container-ids.js';
import { baselineRow, type DerivedContext } from './derived-rows.js';
import { lockRuntimeOfCluster } from './ingest-service.js';
import type { LlmQueue } from './llm-queue.js';
import { DEFAULT_RUNTIME_SETTINGS, engineOptionsOf, loadRuntimeSettings } from './settings-service.js';
import {
  type DueWorkload,
  findDueWorkloads,
  type LockedState,
  lockLearningStates,
} from './window-sweep-repository.js';
import * as workloads from './workload-repository.js';

/**
 * created_by of a baseline the sweep captured. No user closed that window (the user of the last
 * push is not recorded, and naming them would claim an act they did not do); the column is free
 * text, so a fixed marker that no user id (a UUID) can equal says who did.
 */
export const SWEEP_CREATED_BY = 'system:learning-window';
/** Workload containers examined per run: states are up to a few hundred KiB each. */
export const DEFAULT_SWEEP_BATCH = 100;
/** LLM analyses asked for per run, as per push. */
const MAX_LLM_JOBS_PER_RUN = 20;

export interface SweepLogger {
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface SweepOutcome {
  /** due workload containers looked at */
  examined: number;
  baselinesCaptured: number;
  /** ids of the workload containers whose baseline this run captured */
  capturedWorkloadIds: string[];
  /** accounts whose transaction failed (logged; retried by the next run) */
  failedAccounts: number;
}

interface Captured {
  row: LockedState;
  after: WorkloadContainerState;
}

const silent: SweepLogger = { warn() {}, error() {} };

/** Inventory container ids of the captured states, Falco short ids completed as a push does. */
async function contextsOf(
  tx: Executor,
  accountId: string,
  captured: Captured[],
  now: Date,
): Promise<Map<string, DerivedContext>> {
  const shortByCluster = new Map<string, Set<string>>();
  for (const { row, after } of captured) {
    const id = inventoryContainerId(after.container.id);
    if (!isShortId(id)) continue;
    const set = shortByCluster.get(row.cluster_id) ?? new Set<string>();
    shortByCluster.set(row.cluster_id, set.add(id));
  }
  const completed = new Map<string, Map<string, string>>();
  for (const [clusterId, ids] of shortByCluster) {
    completed.set(clusterId, await workloads.completeShortIds(tx, accountId, clusterId, [...ids]));
  }
  return new Map(
    captured.map(({ row, after }): [string, DerivedContext] => {
      const id = inventoryContainerId(after.container.id);
      return [
        row.id,
        {
          accountId,
          clusterId: row.cluster_id,
          workloadId: row.id,
          containerId: completed.get(row.cluster_id)?.get(id) ?? id,
          now,
        },
      ];
    }),
  );
}

async function sweepAccount(tx: Executor, accountId: string, due: DueWorkload[], now: Date) {
  // Sorted, so two sweeps of one account take the cluster locks in the same order.
  for (const clusterId of [...new Set(due.map((d) => d.cluster_id))].sort()) {
    await lockRuntimeOfCluster(tx, clusterId);
  }
  const settings = await loadRuntimeSettings(tx, accountId);
  const options = engineOptionsOf(settings);
  const locked = await lockLearningStates(
    tx,
    accountId,
    due.map((d) => d.id),
  );
  const captured = locked
    .map((row) => ({ row, after: captureIfWindowElapsed(row.state, now.toISOString(), options) }))
    // The index's first_event_at may precede the engine's window start (an older event pushed
    // later): such a window is not over yet.
    .filter((c) => c.row.state.baselineCapturedAt === null && c.after.baselineCapturedAt !== null);
  if (captured.length === 0) return { captured: [], changed: [] };

  await workloads.saveStates(
    tx,
    accountId,
    captured.map((c) => ({
      id: c.row.id,
      clusterId: c.row.cluster_id,
      workloadKey: c.row.workload_key,
      state: c.after,
    })),
    now,
  );
  const contexts = await contextsOf(tx, accountId, captured, now);
  const window = { seconds: settings.learningWindowSeconds, maxEvents: settings.learningWindowMaxEvents };
  await baselines.insertBaselines(
    tx,
    accountId,
    captured.map((c) => baselineRow(c.after, contexts.get(c.row.id)!, window, SWEEP_CREATED_BY)),
  );
  // An insight raised by alerts during learning now has a baseline (state, baseline id, analysis).
  // Its signals are unchanged, so the runtime findings derived from it are too.
  const raising = captured
    .filter((c) => shouldRaiseInsight(c.after))
    .map((c) => ({ id: c.row.id, after: c.after }));
  const changed = await writeInsights(tx, { accountId }, raising, contexts);
  return { captured: captured.map((c) => c.row.id), changed };
}

function byAccount(due: DueWorkload[]): Map<string, DueWorkload[]> {
  const groups = new Map<string, DueWorkload[]>();
  for (const workload of due) {
    const group = groups.get(workload.account_id) ?? [];
    groups.set(workload.account_id, [...group, workload]);
  }
  return groups;
}

export function createWindowSweep({
  db,
  llmQueue,
  periodSeconds,
  batchSize = DEFAULT_SWEEP_BATCH,
}: {
  db: Database;
  llmQueue: LlmQueue | null;
  /** 0: no background runs (tests call sweep() with their own clock) */
  periodSeconds: number;
  batchSize?: number;
}) {
  let log: SweepLogger = silent;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> = Promise.resolve();
  let stopped = true;

  /**
   * One bounded run at `now`: captures what is due then, at most batchSize workload containers.
   * Every account's: the system scope (row-level security, src/db/scope.ts).
   */
  function sweep(now: Date = new Date(), logger: SweepLogger = log): Promise<SweepOutcome> {
    return withSystemScope(() => sweepAll(now, logger));
  }

  async function sweepAll(now: Date, logger: SweepLogger): Promise<SweepOutcome> {
    const due = await findDueWorkloads(db, now, DEFAULT_RUNTIME_SETTINGS.learningWindowSeconds, batchSize);
    const outcome: SweepOutcome = {
      examined: due.length,
      baselinesCaptured: 0,
      capturedWorkloadIds: [],
      failedAccounts: 0,
    };
    for (const [accountId, group] of byAccount(due)) {
      try {
        const result = await db.transaction((tx) => sweepAccount(tx, accountId, group, now));
        outcome.capturedWorkloadIds.push(...result.captured);
        // After the commit, as for a push: the analyses read committed rows.
        if (llmQueue && result.changed.length > 0) {
          llmQueue.enqueue(
            result.changed
              .slice(0, MAX_LLM_JOBS_PER_RUN)
              .map((insight) => ({ accountId, insightId: insight.id, digest: insight.digest })),
            logger,
          );
        }
      } catch (error) {
        outcome.failedAccounts++;
        logger.error({ err: error, account_id: accountId }, 'learning-window sweep failed for an account');
      }
    }
    outcome.baselinesCaptured = outcome.capturedWorkloadIds.length;
    return outcome;
  }

  async function tick(): Promise<void> {
    try {
      // A full batch that made progress may have left more behind: go on until the backlog is gone.
      let outcome: SweepOutcome;
      do outcome = await sweep(new Date());
      while (!stopped && outcome.examined === batchSize && outcome.baselinesCaptured > 0);
    } catch (error) {
      log.error({ err: error }, 'learning-window sweep failed');
    }
    if (!stopped) timer = setTimeout(() => (running = tick()), periodSeconds * 1000).unref();
  }

  return {
    sweep,

    start(logger: SweepLogger): void {
      log = logger;
      if (periodSeconds === 0 || !stopped) return;
      stopped = false;
      timer = setTimeout(() => (running = tick()), periodSeconds * 1000).unref();
    },

    async stop(): Promise<void> {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}

export type WindowSweep = ReturnType<typeof createWindowSweep>;

/** Runs the sweep for the app's lifetime: from ready to close. */
export function registerWindowSweep(app: Api, sweep: WindowSweep): void {
  app.addHook('onReady', async () => sweep.start(app.log));
  app.addHook('onClose', async () => sweep.stop());
}
