/**
 * The suite's scan phase on its own, repeatable (bench/phase-replay.ts): `prepare` builds a
 * template database holding what the suite has stored when the measured account's scans start
 * (with the measured account's clusters and their pods); `run` clones it, starts a built server
 * on the clone and pushes the measured account's scan reports through the HTTP endpoint, one
 * after the other, as bench/seed.ts does (with `--pushers n`, n pushers at once, each to a
 * cluster of the account in turn: docs/performance.md, "Fix 57"). It prints rows/s and the CPU
 * ms per row of the server and of PostgreSQL, so a change can be measured in alternating rounds
 * against a copy of the previous build (docs/performance.md, "Fix 8" and "Fix 11").
 *
 *   DATABASE_URL=postgres://posture:posture@127.0.0.1:5432/posture \
 *     npx tsx bench/scan-phase.ts prepare posture_vuln2_tpl [size]
 *   DATABASE_URL=... npx tsx bench/scan-phase.ts run posture_vuln2_tpl [dist-dir] [--prof dir]
 *     [--pushers n] [--durations] [--explain ms] [--keep]
 *
 * Both start `dist/server.js` unless told another build: `npm run build:server` first. The
 * template's credentials are kept in /tmp/<template>.json. Not a test.
 */
import { scanReport } from './dataset/scans.js';
import { prepareTemplate, pushMeasuredClusters, replayCommand, runOnClone } from './phase-replay.js';
import { SIZES, type SizeName } from './sizes.js';

const { command, template, rest } = replayCommand('scan-phase.ts');

if (command === 'prepare') {
  // The measured account up to its scans: clusters and pods, as populateAccount pushes them.
  await prepareTemplate(template, (rest[0] ?? 'medium') as SizeName, pushMeasuredClusters);
} else {
  await runOnClone(template, rest, async (client, state) => {
    const size = SIZES[state.size].dataset;
    const account = `/accounts/${state.accountId}`;
    const pushersAt = rest.indexOf('--pushers');
    const pushers = pushersAt >= 0 ? Number(rest[pushersAt + 1]) : 1;
    // One pusher pushes every report to the first cluster, as the suite does; pusher p of
    // several pushes to cluster p modulo the clusters (prod-0, prod-1, ...), as each cluster's
    // scanner would.
    const { entries: clusters } = await client.get<{ entries: { id: string; name: string }[] }>(
      `${account}/clusters?page_size=100`,
    );
    const clusterIds =
      pushers > 1
        ? clusters.sort((a, b) => a.name.localeCompare(b.name)).map((cluster) => cluster.id)
        : [state.clusterId];
    const bodies = Array.from({ length: size.images }, (_, image) =>
      JSON.stringify(scanReport(image, size.packagesPerImage, size.cvesPerPackage, 0)),
    );
    const perTenth: number[] = [];
    let tenthStart = performance.now();
    let taken = 0;
    let pushed = 0;
    const pusher = async (p: number) => {
      const url = `${account}/clusters/${clusterIds[p % clusterIds.length]}/ingest/vulnerabilities`;
      for (let image = taken++; image < bodies.length; image = taken++) {
        await client.push(url, bodies[image]!);
        if (++pushed % Math.max(1, Math.round(size.images / 10)) === 0) {
          perTenth.push(Math.round(performance.now() - tenthStart));
          tenthStart = performance.now();
        }
      }
    };
    await Promise.all(Array.from({ length: pushers }, (_, p) => pusher(p)));
    const rows = size.images * size.packagesPerImage * size.cvesPerPackage;
    return { unit: 'rows', items: rows, details: { ms_per_tenth_of_pushes: perTenth } };
  });
}
