/**
 * Scan ingestion for one cluster of an account: decode and read the whole report first (a refused
 * report stores nothing and says which format was recognised and what is wrong), then store it in
 * one transaction that also maintains the derived package and CVE rows and records the
 * Idempotency-Key's answer.
 */
import type { Database, Executor } from '../../db/database.js';
import type { Actor } from '../../http/actor.js';
import { ApiError } from '../../http/errors.js';
import { bodyText, decodeIngestBody } from '../../ingest/body.js';
import {
  claimIdempotencyKey,
  findReplay,
  idempotentRequest,
  storeIdempotentResponse,
} from '../../ingest/idempotency.js';
import type { ScanFormat, ScanReport } from '../../ingest/vulnerabilities/model.js';
import { readScanReport } from '../../ingest/vulnerabilities/read-scan-report.js';
import type { ClusterService } from '../clusters/service.js';
import { scanRows } from './scan-rows.js';
import { type ScanOutcome, storeScan } from './store-scan.js';

export interface ScanPushRequest {
  accountId: string;
  clusterId: string;
  body: unknown;
  contentEncoding?: string | undefined;
  idempotencyKey?: string | undefined;
}

export interface ScanPushResponse {
  cluster_id: string;
  image_id: string;
  format: ScanFormat;
  outcome: ScanOutcome;
  image: { image_repo: string; image_name: string; image_tag: string; image_digest: string };
  scanned_at: string;
  packages: number;
  vulnerabilities: number;
}

/** Parses the body and reads it as a scan report, or throws the 400 that explains why not. */
export function readScanBody(text: string): ScanReport {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw ApiError.validation(
      [{ code: 'invalid_format', field: 'body', message: `is not valid JSON: ${reason}`, param: 'body' }],
      'the body is not a JSON document; nothing was stored',
    );
  }
  const result = readScanReport(doc);
  if (result.ok) return result.report;
  const { error } = result;
  throw ApiError.validation(
    [{ code: error.code, field: error.field ?? 'body', message: error.message, param: 'body' }],
    `${error.message}; nothing was stored`,
  );
}

/**
 * Runs inside the scan's transaction after it is stored (not for a superseded scan), like the
 * Kubernetes push listeners: the findings evaluation re-judges the clusters running the image.
 */
export type ScanPushListener = (
  tx: Executor,
  scan: { accountId: string; imageId: string; now: Date },
) => Promise<void>;

export function createVulnerabilityIngestService({
  db,
  clusters,
  listeners = [],
}: {
  db: Database;
  clusters: ClusterService;
  listeners?: readonly ScanPushListener[];
}) {
  return {
    async ingest(
      actor: Actor,
      request: ScanPushRequest,
    ): Promise<{ response: ScanPushResponse; replayed: boolean }> {
      const cluster = await clusters.requireCluster(actor, request.accountId, request.clusterId, 'editor');
      const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      const idempotency = idempotentRequest(
        cluster.account_id,
        request.idempotencyKey,
        ['vulnerabilities', cluster.id, request.contentEncoding ?? ''],
        raw,
      );
      if (idempotency) {
        const replay = await findReplay<ScanPushResponse>(db, idempotency);
        if (replay) return { response: replay.response, replayed: true };
      }

      const report = readScanBody(bodyText(await decodeIngestBody(raw, request.contentEncoding)));
      const now = new Date();
      const rows = scanRows(cluster.account_id, report, now);
      return db.transaction(async (tx) => {
        if (idempotency) {
          const replay = await claimIdempotencyKey<ScanPushResponse>(tx, idempotency);
          if (replay) return { response: replay.response, replayed: true };
        }
        const outcome = await storeScan(
          tx,
          { accountId: cluster.account_id, clusterId: cluster.id },
          rows,
          now,
        );
        if (outcome !== 'superseded') {
          for (const listener of listeners)
            await listener(tx, { accountId: cluster.account_id, imageId: rows.image.id, now });
        }
        const response: ScanPushResponse = {
          cluster_id: cluster.id,
          image_id: rows.image.id,
          format: report.format,
          outcome,
          image: {
            image_repo: rows.image.imageRepo,
            image_name: rows.image.imageName,
            image_tag: rows.image.imageTag,
            image_digest: rows.image.imageDigest,
          },
          scanned_at: rows.image.scannedAt.toISOString(),
          packages: rows.packages.length,
          vulnerabilities: rows.findings.length,
        };
        if (idempotency) await storeIdempotentResponse(tx, idempotency, response);
        return { response, replayed: false };
      });
    },
  };
}

export type VulnerabilityIngestService = ReturnType<typeof createVulnerabilityIngestService>;
