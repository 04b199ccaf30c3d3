/**
 * Runtime ingestion for one cluster: decode and parse the whole push first (the first bad line
 * refuses it, nothing stored), then apply it in one transaction that also records the
 * Idempotency-Key's answer. Runtime pushes to one cluster serialise on an advisory lock of their
 * own (they read and write the workload containers' states), so they do not wait for Kubernetes
 * pushes. The LLM analyser, when configured, runs after the commit.
 */
import type { Database, Executor } from '../../db/database.js';
import { type LineProblem, parseRuntimeEvents } from '../../engines/runtime/index.js';
import type { Actor } from '../../http/actor.js';
import { ApiError } from '../../http/errors.js';
import { decodeIngestBody } from '../../ingest/body.js';
import {
  claimIdempotencyKey,
  findReplay,
  idempotentRequest,
  storeIdempotentResponse,
} from '../../ingest/idempotency.js';
import type { ClusterService } from '../clusters/service.js';
import { applyRuntimePush } from './apply-push.js';
import type { JobLogger, LlmQueue } from './llm-queue.js';
import { loadRuntimeSettings } from './settings-service.js';
import type { StateCache } from './state-cache.js';

/** Skipped lines listed in the answer; the count covers them all. */
const MAX_SKIPPED_LISTED = 100;
/** LLM analyses asked for per push, most severe insights first. */
const MAX_LLM_JOBS_PER_PUSH = 20;
/** The advisory-lock class of runtime pushes; the cluster id gives the object. */
const RUNTIME_LOCK_CLASS = 0x52554e54; // 'RUNT'

export interface RuntimePushRequest {
  accountId: string;
  clusterId: string;
  body: unknown;
  contentEncoding?: string | undefined;
  idempotencyKey?: string | undefined;
}

export interface RuntimePushResponse {
  cluster_id: string;
  events: number;
  formats: { native: number; falco: number };
  skipped: { line: number; reason: string }[];
  skipped_count: number;
  workload_containers: number;
  baselines_captured: number;
  drift_events: number;
  insights: number;
  http_observations: number;
}

/** The 400 for the first bad line: its number leads the message and the detail's field. */
export function badLine(problem: LineProblem): ApiError {
  const where = problem.field === 'line' ? `line ${problem.line}` : `line ${problem.line} ${problem.field}`;
  return ApiError.validation(
    [{ code: problem.code, field: where, message: problem.message, param: 'body' }],
    `${where}: ${problem.message}; nothing from this push was stored`,
  );
}

/**
 * Runs inside the push's transaction after its rows are written, like the Kubernetes push
 * listeners: the findings evaluation turns the cluster's insights into runtime findings.
 */
export type RuntimePushListener = (
  tx: Executor,
  push: { accountId: string; clusterId: string; now: Date },
) => Promise<void>;

/** Serialises the writers of a cluster's workload states: its pushes and the window sweep. */
export async function lockRuntimeOfCluster(tx: Executor, clusterId: string): Promise<void> {
  await tx.query('select pg_advisory_xact_lock($1, hashtext($2))', [RUNTIME_LOCK_CLASS, clusterId]);
}

export function createRuntimeIngestService({
  db,
  clusters,
  llmQueue,
  stateCache,
  listeners = [],
}: {
  db: Database;
  clusters: ClusterService;
  llmQueue: LlmQueue | null;
  /** the states this server parsed and stored, kept for the next push (state-cache.ts) */
  stateCache: StateCache;
  listeners?: readonly RuntimePushListener[];
}) {
  return {
    async ingest(
      actor: Actor,
      request: RuntimePushRequest,
      log: JobLogger,
    ): Promise<{ response: RuntimePushResponse; replayed: boolean }> {
      const cluster = await clusters.requireCluster(actor, request.accountId, request.clusterId, 'editor');
      const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      const idempotency = idempotentRequest(
        cluster.account_id,
        request.idempotencyKey,
        ['runtime', cluster.id, request.contentEncoding ?? ''],
        raw,
      );
      if (idempotency) {
        const replay = await findReplay<RuntimePushResponse>(db, idempotency);
        if (replay) return { response: replay.response, replayed: true };
      }

      const parsed = parseRuntimeEvents(await decodeIngestBody(raw, request.contentEncoding));
      if (!parsed.ok) throw badLine(parsed.error);

      const result = await db.transaction(async (tx) => {
        await lockRuntimeOfCluster(tx, cluster.id);
        if (idempotency) {
          const replay = await claimIdempotencyKey<RuntimePushResponse>(tx, idempotency);
          if (replay) return { response: replay.response, replayed: true, changed: [], stored: [] };
        }
        const now = new Date();
        const outcome = await applyRuntimePush(
          tx,
          {
            accountId: cluster.account_id,
            clusterId: cluster.id,
            userId: actor.userId,
            settings: await loadRuntimeSettings(tx, cluster.account_id),
            now,
          },
          parsed.events,
          stateCache,
        );
        for (const listener of listeners) {
          await listener(tx, { accountId: cluster.account_id, clusterId: cluster.id, now });
        }
        const response: RuntimePushResponse = {
          cluster_id: cluster.id,
          events: parsed.events.length,
          formats: parsed.formats,
          skipped: parsed.skipped.slice(0, MAX_SKIPPED_LISTED),
          skipped_count: parsed.skipped.length,
          workload_containers: outcome.workloadContainers,
          baselines_captured: outcome.baselinesCaptured,
          drift_events: outcome.driftEvents,
          insights: outcome.insights,
          http_observations: outcome.httpObservations,
        };
        if (idempotency) await storeIdempotentResponse(tx, idempotency, response);
        return { response, replayed: false, changed: outcome.changedInsights, stored: outcome.storedStates };
      });
      // Kept only now that they are committed: a rolled-back push's states would be wrong.
      for (const { id, version, state, chars } of result.stored) stateCache.keep(id, version, state, chars);

      // After the commit: the analyses read committed rows and never hold the push's locks.
      if (llmQueue && result.changed.length > 0) {
        llmQueue.enqueue(
          result.changed.slice(0, MAX_LLM_JOBS_PER_PUSH).map((insight) => ({
            accountId: cluster.account_id,
            insightId: insight.id,
            digest: insight.digest,
          })),
          log,
        );
      }
      return { response: result.response, replayed: result.replayed };
    },
  };
}

export type RuntimeIngestService = ReturnType<typeof createRuntimeIngestService>;
