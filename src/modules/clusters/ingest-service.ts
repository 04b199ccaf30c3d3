/**
 * Kubernetes ingestion for one cluster: read and validate the whole push first (nothing is stored
 * from a push with any invalid item), then apply it in one transaction that also records the
 * Idempotency-Key's answer. Pushes to one cluster serialise on the cluster row.
 */
import type { Database, Executor } from '../../db/database.js';
import type { Actor } from '../../http/actor.js';
import { ApiError, type ValidationDetail } from '../../http/errors.js';
import { parseTime } from '../../http/time.js';
import { bodyText, decodeIngestBody } from '../../ingest/body.js';
import {
  claimIdempotencyKey,
  findReplay,
  idempotentRequest,
  storeIdempotentResponse,
} from '../../ingest/idempotency.js';
import { applyKubernetesPush, type IngestMode } from '../../ingest/kubernetes/engine.js';
import { isKubeObject, type KubeObject, toKubeObject } from '../../ingest/kubernetes/object.js';
import { type KubernetesPush, readKubernetesPush } from '../../ingest/kubernetes/read-push.js';
import { type ChangedResource, lockCluster } from '../../ingest/kubernetes/resource-store.js';
import { lockScans } from '../vulnerabilities/scan-store.js';
import { imagesRunBy } from '../vulnerabilities/usage-store.js';
import type { ClusterService } from './service.js';

/** Enough details to fix a file; the message gives the total. */
const MAX_DETAILS = 20;
/** Agents' clocks drift; an observation time further ahead than this is a mistake. */
const MAX_CLOCK_SKEW_MS = 5 * 60_000;

/** What a push changed, for the engines that derive from cluster resources. */
export interface AppliedKubernetesPush {
  accountId: string;
  clusterId: string;
  clusterName: string;
  /** objects whose latest version changed (new version, deleted, restored); may be empty */
  changed: ChangedResource[];
  /**
   * The scanned images (vulnerability_images ids) of the containers the push started, stopped or
   * re-owned: what the CVE usage counts and the vulnerability findings are refreshed for.
   */
  scannedImageIds: string[];
  /**
   * The live latest versions the push stored, as parsed (their `raw` is what cluster_resources
   * holds): listeners read these from memory instead of reading back the rows just written.
   */
  written: readonly KubeObject[];
  /** every kind the push held, changed or not */
  pushedKinds: string[];
  /** the records' ingested_at */
  now: Date;
  /** when the agent observed the objects (watched_at) */
  observedAt: Date;
}

/**
 * Runs inside the push's transaction, after the resources and inventory are written, under the
 * account's scan lock: what it derives commits with them or not at all.
 */
export type KubernetesPushListener = (tx: Executor, push: AppliedKubernetesPush) => Promise<void>;

/** What a push changed, before the account's scan lock: its scanned images are not matched yet. */
export type ClusterPush = Omit<AppliedKubernetesPush, 'scannedImageIds'>;

/**
 * Runs inside the push's transaction under its cluster's lock alone, before the account's scan
 * lock: for what derives from the cluster's own objects and writes only the cluster's own rows,
 * which no scan push writes, so that pushes to other clusters of the account derive theirs beside
 * it (the misconfiguration findings; docs/performance.md, "Fix 47").
 */
export type ClusterPushListener = (tx: Executor, push: ClusterPush) => Promise<void>;

export interface KubernetesPushRequest {
  accountId: string;
  clusterId: string;
  body: unknown;
  contentEncoding?: string | undefined;
  mode: IngestMode;
  observedAt?: string | undefined;
  idempotencyKey?: string | undefined;
}

export interface KubernetesPushResponse {
  cluster_id: string;
  format: KubernetesPush['format'];
  mode: IngestMode;
  received: number;
  created: number;
  unchanged: number;
  deleted: number;
  restored: number;
  ignored: number;
}

function observationTime(raw: string | undefined, now: Date): Date {
  if (!raw) return now;
  const at = parseTime(raw, 'observed_at', now.getTime());
  if (at.getTime() > now.getTime() + MAX_CLOCK_SKEW_MS) {
    throw ApiError.invalidParam('observed_at', 'out_of_range', 'must not be in the future');
  }
  return at;
}

/** Parses and validates every item; throws one 400 listing the first invalid ones. */
export function validatePush(text: string): { push: KubernetesPush; objects: KubeObject[] } {
  const push = readKubernetesPush(text);
  const problems: ValidationDetail[] = [...push.problems];
  const objects: KubeObject[] = [];
  for (const item of push.items) {
    const result = toKubeObject(item);
    if (isKubeObject(result)) objects.push(result);
    else problems.push(result);
  }
  if (problems.length > 0) {
    throw ApiError.validation(
      problems.slice(0, MAX_DETAILS),
      `${problems.length} of ${push.received} items are invalid; nothing was stored`,
    );
  }
  return { push, objects };
}

export function createKubernetesIngestService({
  db,
  clusters,
  clusterListeners = [],
  listeners = [],
}: {
  db: Database;
  clusters: ClusterService;
  clusterListeners?: readonly ClusterPushListener[];
  listeners?: readonly KubernetesPushListener[];
}) {
  return {
    /** The role check alone, so a caller without it is refused before its body is read. */
    async authorize(actor: Actor, accountId: string, clusterId: string): Promise<void> {
      await clusters.requireCluster(actor, accountId, clusterId, 'editor');
    },

    async ingest(
      actor: Actor,
      request: KubernetesPushRequest,
    ): Promise<{ response: KubernetesPushResponse; replayed: boolean }> {
      const cluster = await clusters.requireCluster(actor, request.accountId, request.clusterId, 'editor');
      const now = new Date();
      const observedAt = observationTime(request.observedAt, now);
      const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      const idempotency = idempotentRequest(
        cluster.account_id,
        request.idempotencyKey,
        ['kubernetes', cluster.id, request.mode, request.observedAt ?? '', request.contentEncoding ?? ''],
        raw,
      );
      if (idempotency) {
        const replay = await findReplay<KubernetesPushResponse>(db, idempotency);
        if (replay) return { response: replay.response, replayed: true };
      }

      const { push, objects } = validatePush(bodyText(await decodeIngestBody(raw, request.contentEncoding)));
      return db.transaction(async (tx) => {
        // The cluster's lock alone while the push writes the cluster's own rows (records, image
        // links, containers, their totals), so pushes to other clusters of the account run beside
        // it; the account's scan lock only once it derives what the account shares (below).
        await lockCluster(tx, { accountId: cluster.account_id, clusterId: cluster.id });
        if (idempotency) {
          const replay = await claimIdempotencyKey<KubernetesPushResponse>(tx, idempotency);
          if (replay) return { response: replay.response, replayed: true };
        }
        const clusterRef = {
          accountId: cluster.account_id,
          clusterId: cluster.id,
          clusterName: cluster.name,
        };
        const { counts, changed, containerImages, written } = await applyKubernetesPush(
          tx,
          clusterRef,
          objects,
          {
            mode: request.mode,
            observedAt,
            now,
          },
        );
        const applied: ClusterPush = {
          ...clusterRef,
          changed,
          written,
          pushedKinds: [...new Set(objects.map((object) => object.kind))],
          now,
          observedAt,
        };
        // Sequential: one transaction runs one statement at a time.
        for (const listener of clusterListeners) await listener(tx, applied);
        // The listeners derive rows the account shares (CVE usage, findings of the scanned images),
        // which scan pushes write too: under the account's scan lock. Taken after the cluster's,
        // which a scan push never waits for (lockCluster), and before anything a scan writes.
        await lockScans(tx, cluster.account_id);
        // Matched once for every listener, under the scan lock: a scan storing a new image of
        // these containers either committed before (and is matched) or waits for us.
        const scannedImageIds = await imagesRunBy(tx, cluster.account_id, containerImages);
        for (const listener of listeners) await listener(tx, { ...applied, scannedImageIds });
        const response: KubernetesPushResponse = {
          cluster_id: cluster.id,
          format: push.format,
          mode: request.mode,
          received: push.received,
          ignored: push.ignored,
          ...counts,
        };
        if (idempotency) await storeIdempotentResponse(tx, idempotency, response);
        return { response, replayed: false };
      });
    },
  };
}

export type KubernetesIngestService = ReturnType<typeof createKubernetesIngestService>;
