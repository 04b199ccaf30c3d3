/**
 * SQL of the learning-window sweep: which workload containers are due (across accounts: the sweep
 * is the server's own job, not a caller's), and their states locked for the capture, per account.
 */
import type { Executor } from '../../db/database.js';
import type { WorkloadContainerState } from '../../engines/runtime/index.js';

export interface DueWorkload {
  account_id: string;
  id: string;
  cluster_id: string;
}

export interface LockedState {
  id: string;
  cluster_id: string;
  workload_key: string;
  state: WorkloadContainerState;
}

/**
 * Workload containers still learning whose first event is at least their account's window before
 * `now`, at most `limit`: the accounts take turns (each one's most overdue first), so an account
 * with a large backlog, or whose sweep keeps failing, cannot starve the others. Each account's
 * rows are one range scan of the partial index runtime_workloads_learning (migration 0010),
 * reached from the accounts table: the cost follows the number of accounts and of due rows, never
 * that of captured workload containers.
 */
export async function findDueWorkloads(
  db: Executor,
  now: Date,
  defaultWindowSeconds: number,
  limit: number,
): Promise<DueWorkload[]> {
  const { rows } = await db.query<DueWorkload>(
    `select a.id as account_id, w.id, w.cluster_id
       from accounts a
       left join runtime_settings s on s.account_id = a.id
       cross join lateral (
         select w.id, w.cluster_id, w.first_event_at,
                row_number() over (order by w.first_event_at, w.id) as turn
           from runtime_workloads w
          where w.account_id = a.id
            and w.baseline_captured_at is null
            and w.first_event_at <= $1::timestamptz
                  - coalesce(s.learning_window_seconds, $2::integer) * interval '1 second'
          order by w.first_event_at, w.id
          limit $3
       ) w
      order by w.turn, w.first_event_at, a.id, w.id
      limit $3`,
    [now, defaultWindowSeconds, limit],
  );
  return rows;
}

/**
 * The states of the given workload containers of one account that are still learning, their rows
 * locked until the transaction ends (in id order, so two sweeps lock alike). A row a push captured
 * meanwhile is not returned.
 */
export async function lockLearningStates(
  db: Executor,
  accountId: string,
  ids: string[],
): Promise<LockedState[]> {
  if (ids.length === 0) return [];
  const { rows } = await db.query<{ id: string; cluster_id: string; workload_key: string; state: string }>(
    `select id, cluster_id, workload_key, state
       from runtime_workloads
      where account_id = $1 and id = any($2::uuid[]) and baseline_captured_at is null
      order by id
        for update`,
    [accountId, ids],
  );
  return rows.map((row) => ({ ...row, state: JSON.parse(row.state) as WorkloadContainerState }));
}
