/**
 * SQL of the recompute step for risks: every risk ever detected keeps its row; a risk that is
 * gone gets deleted_at (resolved, not forgotten) and is reopened with its first detection kept if
 * it comes back.
 */
import type { QueryResult, Statement } from '../../db/database.js';
import { iso } from '../../http/ids.js';
import { batches } from '../../ingest/batches.js';
import type { RecomputePlan, StoredRisk } from './plan.js';
import { riskHeadJson } from './risk-json.js';
import type { ClusterScope } from './sources.js';

interface StoredRiskRow {
  identity_id: string;
  id: string;
  fingerprint: string;
  first_detected_at: Date;
  last_detected_at: Date;
  deleted_at: Date | null;
  content_hash: string;
  text_cached: boolean;
}

/** Every stored risk of these identities of the cluster; read by `storedRisks`. */
export const storedRisksStatement = (scope: ClusterScope, identityIds: readonly string[]): Statement => ({
  sql: `select identity_id, id, fingerprint, first_detected_at, last_detected_at, deleted_at, content_hash,
               head_json is not null as text_cached
          from identity_risks where account_id = $1 and cluster_id = $2 and identity_id = any($3::uuid[])`,
  params: [scope.accountId, scope.clusterId, identityIds],
});

/** The rows of `storedRisksStatement`, grouped by identity. */
export function storedRisks(result: QueryResult<Record<string, unknown>>): Map<string, StoredRisk[]> {
  const rows = result.rows as unknown as StoredRiskRow[];
  const byIdentity = new Map<string, StoredRisk[]>();
  for (const row of rows) {
    const list = byIdentity.get(row.identity_id) ?? [];
    list.push({
      identity_id: row.identity_id,
      id: row.id,
      fingerprint: row.fingerprint,
      first_detected_at: iso(row.first_detected_at)!,
      last_detected_at: iso(row.last_detected_at)!,
      deleted_at: iso(row.deleted_at),
      content_hash: row.content_hash,
      text_cached: row.text_cached,
    });
    byIdentity.set(row.identity_id, list);
  }
  return byIdentity;
}

/**
 * Resolutions first, then every risk still open of the recomputed identities is marked detected
 * now, then new, reopened and changed risks are written whole, with their API text (head_json,
 * risk-json.ts). The plan rewrites each identity whose risks this writes (planRecompute), which is
 * what keeps an identity's `xmin` the version of its text (repository.ts, TEXT_VERSION).
 */
export function riskStatements(
  scope: ClusterScope,
  plan: Pick<RecomputePlan, 'riskUpserts' | 'riskResolutions'>,
  now: string,
  identityIds: readonly string[],
): Statement[] {
  const resolutions = [...batches(plan.riskResolutions)].map((batch) => ({
    sql: `update identity_risks r set deleted_at = $2
            from unnest($3::uuid[], $4::uuid[]) as v (identity_id, id)
           where r.account_id = $1 and r.identity_id = v.identity_id and r.id = v.id and r.deleted_at is null`,
    params: [scope.accountId, now, batch.map((r) => r.identity_id), batch.map((r) => r.id)],
  }));
  const detected = {
    sql: `update identity_risks set last_detected_at = $3
           where account_id = $1 and cluster_id = $2 and deleted_at is null
             and identity_id = any($4::uuid[]) and last_detected_at <> $3`,
    params: [scope.accountId, scope.clusterId, now, identityIds],
  };
  const upserts = [...batches(plan.riskUpserts)].map((batch) => {
    const column = <T>(pick: (upsert: (typeof batch)[number]) => T) => batch.map(pick);
    return {
      sql: `insert into identity_risks (account_id, cluster_id, identity_id, id, fingerprint, type, name,
              description, weight, score, severity, namespace, associated_resources, risk_counter,
              first_detected_at, last_detected_at, deleted_at, content_hash, head_json)
            select $1, $2, v.identity_id, v.id, v.fingerprint, v.type, v.name, v.description, v.weight,
                   v.score, v.severity, v.namespace, v.associated_resources::jsonb, v.risk_counter,
                   v.first_detected_at, $3, null, v.content_hash, v.head_json
              from unnest($4::uuid[], $5::uuid[], $6::text[], $7::text[], $8::text[], $9::text[],
                          $10::float8[], $11::float8[], $12::text[], $13::text[], $14::text[],
                          $15::integer[], $16::timestamptz[], $17::text[], $18::text[])
                   as v (identity_id, id, fingerprint, type, name, description, weight, score, severity,
                         namespace, associated_resources, risk_counter, first_detected_at, content_hash,
                         head_json)
            on conflict (account_id, identity_id, id) do update set
              fingerprint = excluded.fingerprint, type = excluded.type, name = excluded.name,
              description = excluded.description, weight = excluded.weight, score = excluded.score,
              severity = excluded.severity, namespace = excluded.namespace,
              associated_resources = excluded.associated_resources, risk_counter = excluded.risk_counter,
              first_detected_at = excluded.first_detected_at, last_detected_at = excluded.last_detected_at,
              deleted_at = null, content_hash = excluded.content_hash, head_json = excluded.head_json`,
      params: [
        scope.accountId,
        scope.clusterId,
        now,
        column((u) => u.risk.identity_id),
        column((u) => u.risk.id),
        column((u) => u.risk.fingerprint),
        column((u) => u.risk.type),
        column((u) => u.risk.name),
        column((u) => u.risk.description),
        column((u) => u.risk.weight),
        column((u) => u.risk.score),
        column((u) => u.risk.severity),
        column((u) => u.risk.namespace),
        column((u) => JSON.stringify(u.risk.associated_resources)),
        column((u) => u.risk.risk_counter),
        column((u) => u.first_detected_at),
        column((u) => u.content_hash),
        column((u) => riskHeadJson(u.risk)),
      ],
    };
  });
  return [...resolutions, detected, ...upserts];
}
