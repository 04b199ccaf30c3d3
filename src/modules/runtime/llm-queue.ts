/**
 * Runs the optional LLM analyser after a push has committed, never inside its transaction and
 * never on the push's response path: a slow or failing provider cannot hold database locks or
 * agents. Best effort and bounded: a few calls at a time, a capped backlog (extra jobs are
 * dropped and logged), one pending job per insight (the latest wins), and an answer is stored only
 * if the insight still has the analysis it was asked about.
 *
 * @example
 *   const queue = createLlmQueue({ db, analyser });
 *   queue.enqueue([{ accountId, insightId, digest }], request.log);
 *   await queue.idle(); // tests: wait until every job has finished
 */
import type { Database } from '../../db/database.js';
import { withSystemScope } from '../../db/scope.js';
import type { LlmAnalyser } from '../../engines/runtime/index.js';
import * as insights from './insight-repository.js';
import * as workloads from './workload-repository.js';

export interface LlmJob {
  accountId: string;
  insightId: string;
  /** the analysis digest the job is for: a newer push replaces it */
  digest: string;
}

export interface JobLogger {
  warn(obj: object, msg: string): void;
}

export interface LlmQueueOptions {
  db: Database;
  analyser: LlmAnalyser;
  concurrency?: number;
  maxPending?: number;
}

export function createLlmQueue({ db, analyser, concurrency = 2, maxPending = 200 }: LlmQueueOptions) {
  const pending = new Map<string, { job: LlmJob; log: JobLogger }>();
  let running = 0;
  let closed = false;
  let waiters: (() => void)[] = [];

  const settle = () => {
    if (running > 0 || pending.size > 0) return;
    for (const resolve of waiters) resolve();
    waiters = [];
  };

  async function run({ job, log }: { job: LlmJob; log: JobLogger }): Promise<void> {
    const insight = await insights.findInsight(db, job.accountId, job.insightId);
    // Another push changed the analysis meanwhile: its own job asks about the new one.
    if (!insight || insight.analysis_digest !== job.digest) return;
    const state = await workloads.loadState(db, job.accountId, insight.workload_id);
    const ruleRecord = insight.analysis[0];
    if (!state || !ruleRecord) return;
    const record = await analyser.analyse(state, ruleRecord);
    const saved = await insights.saveLlmAnalysis(db, job.accountId, job.insightId, job.digest, record);
    if (!saved) log.warn({ insightId: job.insightId }, 'LLM analysis dropped: the insight changed meanwhile');
  }

  function pump(): void {
    while (!closed && running < concurrency && pending.size > 0) {
      const [key, entry] = pending.entries().next().value!;
      pending.delete(key);
      running++;
      // A job outlives the request that queued it and the pump runs in whichever context freed a
      // slot: each job states its own scope, the system's (its queries name their account).
      withSystemScope(() => run(entry))
        .catch((error: unknown) =>
          entry.log.warn({ err: error, insightId: entry.job.insightId }, 'LLM analysis failed'),
        )
        .finally(() => {
          running--;
          pump();
          settle();
        });
    }
  }

  /** Resolves once no job is pending or running. */
  function idle(): Promise<void> {
    if (running === 0 && pending.size === 0) return Promise.resolve();
    return new Promise((resolve) => waiters.push(resolve));
  }

  return {
    idle,

    enqueue(jobs: readonly LlmJob[], log: JobLogger): void {
      let dropped = 0;
      for (const job of jobs) {
        const key = `${job.accountId}/${job.insightId}`;
        if (closed || (!pending.has(key) && pending.size >= maxPending)) dropped++;
        else pending.set(key, { job, log });
      }
      if (dropped > 0) log.warn({ dropped }, 'LLM analysis backlog full: insights left without one');
      pump();
    },

    /** Drops the backlog and waits for the calls in flight (each bounded by the analyser's timeout). */
    async close(): Promise<void> {
      closed = true;
      pending.clear();
      await idle();
    },
  };
}

export type LlmQueue = ReturnType<typeof createLlmQueue>;
