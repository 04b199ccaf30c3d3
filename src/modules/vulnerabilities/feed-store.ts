/**
 * SQL of the EPSS and KEV feed tables. An import replaces a feed as a whole inside one
 * transaction (delete, then insert in batches): readers keep seeing the previous feed until it
 * commits, and a file that turns out to be bad halfway rolls back to it. Imports of one feed
 * serialise on an advisory lock, so two replacements never interleave.
 */
import type { Executor } from '../../db/database.js';
import { batches } from '../../ingest/batches.js';
import type { EpssScore } from '../../ingest/feeds/epss.js';
import type { FeedFormat } from '../../ingest/feeds/feed-format-error.js';
import type { KevEntry } from '../../ingest/feeds/kev.js';

export async function lockFeed(tx: Executor, feed: FeedFormat) {
  await tx.query(`select pg_advisory_xact_lock(hashtextextended('posture.feed.' || $1, 0))`, [feed]);
}

/** Replaces every EPSS score with the streamed ones; returns how many CVEs are scored. */
export async function replaceEpssScores(tx: Executor, scores: AsyncIterable<EpssScore[]>): Promise<number> {
  await tx.query('delete from epss_scores');
  for await (const batch of scores) {
    // A CVE repeated in a later batch replaces the earlier row, as a repeated line does within one.
    await tx.query(
      `insert into epss_scores (cve, epss, percentile)
       select * from unnest($1::text[], $2::float8[], $3::float8[])
       on conflict (cve) do update set epss = excluded.epss, percentile = excluded.percentile`,
      [batch.map((s) => s.cve), batch.map((s) => s.epss), batch.map((s) => s.percentile)],
    );
  }
  const { rows } = await tx.query<{ n: number }>('select count(*) as n from epss_scores');
  return rows[0]?.n ?? 0;
}

/** The CVE ids of the KEV catalog as stored. */
export async function kevCves(tx: Executor): Promise<Set<string>> {
  const { rows } = await tx.query<{ cve: string }>('select cve from kev_entries');
  return new Set(rows.map((row) => row.cve));
}

export async function replaceKevEntries(tx: Executor, entries: readonly KevEntry[]): Promise<number> {
  await tx.query('delete from kev_entries');
  for (const batch of batches(entries)) {
    const col = <V>(pick: (entry: KevEntry) => V) => batch.map(pick);
    await tx.query(
      `insert into kev_entries (cve, vendor_project, product, vulnerability_name, date_added,
         short_description, required_action, due_date, known_ransomware_campaign_use, notes, cwes)
       select v.cve, v.vendor_project, v.product, v.vulnerability_name, v.date_added, v.short_description,
              v.required_action, v.due_date, v.ransomware, v.notes, string_to_array(v.cwes, ',')
         from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::date[], $6::text[], $7::text[],
                     $8::date[], $9::text[], $10::text[], $11::text[])
           as v (cve, vendor_project, product, vulnerability_name, date_added, short_description,
                 required_action, due_date, ransomware, notes, cwes)`,
      [
        col((e) => e.cveId),
        col((e) => e.vendorProject),
        col((e) => e.product),
        col((e) => e.vulnerabilityName),
        col((e) => e.dateAdded),
        col((e) => e.shortDescription),
        col((e) => e.requiredAction),
        col((e) => e.dueDate),
        col((e) => e.knownRansomwareCampaignUse),
        col((e) => e.notes),
        // CWE ids (CWE-79) hold no comma; unnest cannot carry one array per row.
        col((e) => e.cwes.join(',')),
      ],
    );
  }
  return entries.length;
}

export interface FeedImportRecord {
  feed: FeedFormat;
  rows: number;
  version: string | null;
  publishedAt: string | null;
  importedAt: Date;
  importedBy: string | null;
}

export async function recordImport(tx: Executor, record: FeedImportRecord) {
  await tx.query(
    `insert into feed_imports (feed, imported_at, rows, version, published_at, imported_by)
     values ($1, $2, $3, $4, $5, $6)
     on conflict (feed) do update set imported_at = excluded.imported_at, rows = excluded.rows,
       version = excluded.version, published_at = excluded.published_at, imported_by = excluded.imported_by`,
    [record.feed, record.importedAt, record.rows, record.version, record.publishedAt, record.importedBy],
  );
}

/** The feeds imported at least once. */
export async function importedFeeds(db: Executor): Promise<Set<FeedFormat>> {
  const { rows } = await db.query<{ feed: FeedFormat }>('select feed from feed_imports');
  return new Set(rows.map((row) => row.feed));
}
