/**
 * EPSS and KEV imports, from `posture feeds import FILE...` or the admin endpoint. Feeds are
 * global reference data: every tenant's reports read the same scores, so an import over HTTP is
 * reserved to the operator's tenant, named by the FEED_ADMIN_TENANT setting; its tenant-level
 * admins may import (docs/vulnerabilities-api.md). Without the setting only the CLI imports.
 *
 * Report rows are never rewritten by an import: they join the feed tables when read.
 */
import type { Database, Executor } from '../../db/database.js';
import { withSystemScope } from '../../db/scope.js';
import { type Actor, roleOnTenant } from '../../http/actor.js';
import { ApiError } from '../../http/errors.js';
import { iso } from '../../http/ids.js';
import { decodeIngestBody } from '../../ingest/body.js';
import { FeedFormatError } from '../../ingest/feeds/feed-format-error.js';
import { type Feed, openFeed } from '../../ingest/feeds/read-feed.js';
import { findTenantByName } from '../tenancy/repository.js';
import * as store from './feed-store.js';

export interface FeedImportResult {
  feed: 'epss' | 'kev';
  rows: number;
  compressed: boolean;
  /** EPSS model_version or KEV catalogVersion. */
  version: string | null;
  /** EPSS score_date or KEV dateReleased. */
  published_at: string | null;
  imported_at: string;
}

/** A refused feed file as the API's 400: the format recognised, where, and what is wrong. */
export function feedRefusal(error: FeedFormatError): ApiError {
  const field = error.field ?? (error.line !== null ? `line ${error.line}` : 'body');
  return ApiError.validation(
    [{ code: 'invalid_format', field, message: error.message, param: 'body' }],
    `${error.message}; the feeds were not changed`,
  );
}

/**
 * Called inside a KEV import's transaction with the CVE ids that entered or left the catalog:
 * the findings evaluation moves their findings between VULN-001 and VULN-002.
 */
export type KevChangeListener = (tx: Executor, changedCves: readonly string[], at: Date) => Promise<void>;

/** The CVE ids in one set and not the other. */
function changedBetween(before: Set<string>, after: Set<string>): string[] {
  return [...[...after].filter((cve) => !before.has(cve)), ...[...before].filter((cve) => !after.has(cve))];
}

/** Loads one opened feed in one transaction; on any error the previous feed stays as it was. */
export async function importFeed(
  db: Database,
  feed: Feed,
  importedBy: string | null,
  kevListeners: readonly KevChangeListener[] = [],
): Promise<FeedImportResult> {
  const importedAt = new Date();
  const info =
    feed.kind === 'epss'
      ? { version: feed.modelVersion, publishedAt: feed.scoreDate }
      : { version: feed.catalog.catalogVersion, publishedAt: feed.catalog.dateReleased };
  try {
    const rows = await db.transaction(async (tx) => {
      await store.lockFeed(tx, feed.kind);
      let count: number;
      if (feed.kind === 'epss') {
        count = await store.replaceEpssScores(tx, feed.batches());
      } else {
        const before = await store.kevCves(tx);
        count = await store.replaceKevEntries(tx, feed.catalog.entries);
        const changed = changedBetween(before, await store.kevCves(tx));
        if (changed.length > 0) for (const listener of kevListeners) await listener(tx, changed, importedAt);
      }
      await store.recordImport(tx, { feed: feed.kind, rows: count, ...info, importedAt, importedBy });
      return count;
    });
    return {
      feed: feed.kind,
      rows,
      compressed: feed.compressed,
      version: info.version,
      published_at: info.publishedAt,
      imported_at: iso(importedAt)!,
    };
  } finally {
    // The EPSS rows may not have been read to the end (an error before the first batch).
    if (feed.kind === 'epss') await feed.close();
  }
}

export function createFeedService({
  db,
  feedAdminTenant,
  kevListeners = [],
}: {
  db: Database;
  feedAdminTenant?: string | undefined;
  kevListeners?: readonly KevChangeListener[];
}) {
  async function requireFeedAdmin(actor: Actor) {
    if (roleOnTenant(actor) !== 'admin') {
      throw new ApiError(
        'forbidden',
        'importing feeds requires the admin role on the tenant (a tenant-scoped key)',
      );
    }
    const operators = feedAdminTenant ? await findTenantByName(db, feedAdminTenant) : undefined;
    if (operators?.id !== actor.tenantId) {
      throw new ApiError(
        'forbidden',
        'feeds are shared by every tenant: only admins of the operator tenant (FEED_ADMIN_TENANT) import ' +
          'them over HTTP; an operator can use `posture feeds import`',
      );
    }
  }

  return {
    async importFromRequest(
      actor: Actor,
      request: { body: unknown; contentEncoding?: string | undefined },
    ): Promise<FeedImportResult> {
      await requireFeedAdmin(actor);
      const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      const bytes = await decodeIngestBody(raw, request.contentEncoding);
      try {
        // Feeds are global and a KEV change re-evaluates every tenant's findings: no caller's scope.
        const result = await withSystemScope(async () =>
          importFeed(db, await openFeed(bytes), actor.userId, kevListeners),
        );
        // decodeIngestBody hands back the very buffer it was given unless it inflated gzip.
        return { ...result, compressed: result.compressed || bytes !== raw };
      } catch (error) {
        if (error instanceof FeedFormatError) throw feedRefusal(error);
        throw error;
      }
    },
  };
}

export type FeedService = ReturnType<typeof createFeedService>;
