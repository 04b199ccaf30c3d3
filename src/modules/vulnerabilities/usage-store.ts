/**
 * The usage half of the CVE report, maintained at ingestion (docs/vulnerabilities-api.md, "What is
 * stored"): which workloads run each scanned image (vulnerability_image_workloads), and, per CVE
 * row, the aggregate over its images' workloads (in_use, affected workloads, clusters, owner uids
 * and cluster ids on vulnerability_cves). Both are rewritten for the images a push touched only,
 * in the push's transaction, under the account's scan lock (lockScans) so that two pushes never
 * recompute one CVE row from two different snapshots.
 */
import type { Executor } from '../../db/database.js';
import type { ContainerImageRefs } from '../../ingest/kubernetes/inventory.js';

/**
 * The usage aggregate of each distinct image set of `relation` (an SQL relation with an
 * `image_ids uuid[]` column, sorted): distinct workloads, clusters, owner uids and cluster ids of
 * the workloads running any of the images; zeros and empty arrays when none runs. CVE rows with
 * the same images (every CVE of a base image's packages) share one computation, so a widely run
 * image costs its workloads once per image set, not once per CVE row. Arrays are sorted so a
 * recompute that changes nothing writes nothing.
 */
export function usageOfImageSets(relation: string): string {
  return `select s.image_ids, u.workloads, u.clusters, u.owner_uids, u.cluster_ids
            from (select distinct image_ids from ${relation}) s
            cross join lateral (
              select count(distinct (w.cluster_id, w.owner_uid))::integer as workloads,
                     count(distinct w.cluster_id)::integer as clusters,
                     coalesce(array_agg(distinct w.owner_uid order by w.owner_uid), '{}') as owner_uids,
                     coalesce(array_agg(distinct w.cluster_id order by w.cluster_id), '{}') as cluster_ids
                from vulnerability_image_workloads w
               where w.account_id = $1 and w.image_id = any(s.image_ids)
            ) u`;
}

/** The scanned images of the account these containers run (the matching rules of the usage view). */
export async function imagesRunBy(tx: Executor, accountId: string, refs: ContainerImageRefs) {
  if (refs.digests.length === 0 && refs.repos.length === 0) return [];
  const { rows } = await tx.query<{ id: string }>(
    `select i.id from vulnerability_images i
      where i.account_id = $1 and i.image_digest <> '' and i.image_digest = any($2::text[])
     union
     select i.id from vulnerability_images i
      where i.account_id = $1 and i.config_digest <> '' and i.config_digest = any($2::text[])
     union
     select i.id from vulnerability_images i
       join unnest($3::text[], $4::text[]) as t (repo, tag) on i.image_repo = t.repo and i.image_tag = t.tag
      where i.account_id = $1 and i.image_digest = '' and i.image_repo <> ''`,
    [accountId, refs.digests, refs.repos, refs.tags],
  );
  return rows.map((row) => row.id);
}

/**
 * Rewrites the workloads of these images from the live containers; returns the images whose set
 * of workloads changed (a replica replaced by another of the same owner changes nothing).
 */
export async function refreshImageWorkloads(tx: Executor, accountId: string, imageIds: string[]) {
  if (imageIds.length === 0) return [];
  const { rows } = await tx.query<{ image_id: string }>(
    `with fresh as materialized (
       select distinct image_id, cluster_id, owner_uid from vulnerability_image_usage
        where account_id = $1 and image_id = any($2::uuid[])
     ),
     gone as (
       delete from vulnerability_image_workloads w
        where w.account_id = $1 and w.image_id = any($2::uuid[])
          and not exists (select 1 from fresh n
                           where n.image_id = w.image_id and n.cluster_id = w.cluster_id and n.owner_uid = w.owner_uid)
       returning w.image_id
     ),
     added as (
       insert into vulnerability_image_workloads (account_id, image_id, cluster_id, owner_uid)
       select $1, image_id, cluster_id, owner_uid from fresh
       on conflict do nothing
       returning image_id
     )
     select image_id from gone union select image_id from added`,
    [accountId, imageIds],
  );
  return rows.map((row) => row.image_id);
}

/** Recomputes the usage columns of every CVE row these images have; writes only what changed. */
export async function refreshCveUsageOfImages(tx: Executor, accountId: string, imageIds: string[]) {
  if (imageIds.length === 0) return;
  await tx.query(
    `with touched as (
       select distinct cve_id from vulnerability_findings where account_id = $1 and image_id = any($2::uuid[])
     ),
     sets as materialized (
       select f.cve_id, array_agg(f.image_id order by f.image_id) as image_ids
         from touched t
         join vulnerability_findings f on f.account_id = $1 and f.cve_id = t.cve_id
        group by f.cve_id
     ),
     usage as materialized (${usageOfImageSets('sets')})
     update vulnerability_cves r set
       affected_workloads_count = u.workloads, affected_clusters_count = u.clusters,
       affected_owner_uids = u.owner_uids, affected_cluster_ids = u.cluster_ids
     from sets s
     join usage u on u.image_ids = s.image_ids
     where r.account_id = $1 and r.id = s.cve_id
       and (r.affected_workloads_count, r.affected_clusters_count, r.affected_owner_uids, r.affected_cluster_ids)
           is distinct from (u.workloads, u.clusters, u.owner_uids, u.cluster_ids)`,
    [accountId, imageIds],
  );
}
