/**
 * The demo tenant's vulnerability data (src/demo/demo-tenant.ts): the sample scan reports of
 * sample/scans/, which name the images and digests the sample cluster runs, pushed through the
 * real ingestion endpoint; and the sample EPSS and KEV files, loaded when the store has no feed
 * yet (feeds are shared by every tenant: a real feed an operator imported is never replaced).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import type { Database } from '../../db/database.js';
import { openFeedFile } from '../../ingest/feeds/read-feed.js';
import { importFeed } from './feed-service.js';
import { importedFeeds } from './feed-store.js';

/** Relative to this file in src/modules/vulnerabilities/ and in dist/modules/vulnerabilities/ alike. */
const SAMPLE_SCANS = new URL('../../../sample/scans/', import.meta.url);
const SAMPLE_FEEDS = new URL('../../../sample/feeds/', import.meta.url);

export const SAMPLE_SCAN_FILES = [
  'nginx-1.27.2.trivy.json',
  'redis-7.4.1-alpine.grype.json',
  'postgres-16.4.cdx.json',
  'busybox-latest.cdx.json',
  'storefront-api-3.8.0.trivy.json',
] as const;

export async function pushSampleScans(
  app: Pick<FastifyInstance, 'inject'>,
  request: { token: string; accountId: string; clusterId: string },
): Promise<void> {
  for (const file of SAMPLE_SCAN_FILES) {
    const res = await app.inject({
      method: 'POST',
      url: `/accounts/${request.accountId}/clusters/${request.clusterId}/ingest/vulnerabilities`,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${request.token}` },
      payload: readFileSync(new URL(file, SAMPLE_SCANS)),
    });
    if (res.statusCode !== 200)
      throw new Error(`demo data: scan ${file} answered ${res.statusCode}: ${res.body}`);
  }
}

export async function importSampleFeeds(db: Database): Promise<void> {
  const loaded = await importedFeeds(db);
  for (const [feed, file] of [
    ['epss', 'epss.csv.gz'],
    ['kev', 'kev.json'],
  ] as const) {
    if (!loaded.has(feed))
      await importFeed(db, await openFeedFile(fileURLToPath(new URL(file, SAMPLE_FEEDS))), null);
  }
}
