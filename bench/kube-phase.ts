/**
 * The suite's Kubernetes phase on its own, repeatable (bench/phase-replay.ts): `prepare` builds a
 * template database holding what the suite has stored when the measured account's first cluster
 * is created; `run` clones it, starts a built server on the clone and pushes the measured
 * account's clusters through the HTTP endpoint in Lists of 2,000 objects, as bench/seed.ts does.
 * It prints objects/s and the CPU ms per object of the server and of PostgreSQL, so a change can
 * be measured in alternating rounds against a copy of the previous build (docs/performance.md,
 * "Fix 10"), and the server's peak resident set after each push (which pushes raise it: "Fix 27").
 *
 *   DATABASE_URL=postgres://posture:posture@127.0.0.1:5432/posture \
 *     npx tsx bench/kube-phase.ts prepare posture_kube_tpl [size]
 *   DATABASE_URL=... npx tsx bench/kube-phase.ts run posture_kube_tpl [dist-dir] [--prof dir]
 *     [--clusters n] [--pushes n] [--sequential] [--durations] [--explain ms] [--keep]
 *
 * The clusters' agents push at the same time, as the suite's do; `--sequential` pushes one
 * cluster after the other (the suite's order before Fix 40). With several agents, `ms_per_push`
 * lists the pushes in the order they ended.
 *
 * `--pushes n` pushes only the first n Lists of each cluster: a large cluster's RBAC objects,
 * whose identities set the server's peak, come in its first twenty, and its pods take minutes more.
 *
 * Both start `dist/server.js` unless told another build: `npm run build:server` first. The
 * template's credentials are kept in /tmp/<template>.json. Not a test.
 */
import { prepareTemplate, pushClusters, replayCommand, runOnClone } from './phase-replay.js';
import { memoryOf } from './server-process.js';
import { SIZES, type SizeName } from './sizes.js';

const { command, template, rest } = replayCommand('kube-phase.ts');

if (command === 'prepare') {
  // Nothing of the measured account: its clusters are the phase.
  await prepareTemplate(template, (rest[0] ?? 'medium') as SizeName, async () => ({}));
} else {
  await runOnClone(template, rest, async (client, state, serverPid) => {
    const size = SIZES[state.size].dataset;
    const clustersAt = rest.indexOf('--clusters');
    const clusters = clustersAt >= 0 ? Number(rest[clustersAt + 1]) : size.clusters;
    const pushesAt = rest.indexOf('--pushes');
    const maxPushes = pushesAt >= 0 ? Number(rest[pushesAt + 1]) : Number.POSITIVE_INFINITY;
    let objects = 0;
    const perPush: number[] = [];
    // The server's peak resident set after each push: which pushes raise it.
    const peakAfterPush: number[] = [];
    await pushClusters(client, state.accountId, size, {
      clusters,
      maxPushes,
      sequential: rest.includes('--sequential'),
      pushed: (items, ms) => {
        perPush.push(Math.round(ms));
        peakAfterPush.push(memoryOf(serverPid).hwm_mib);
        objects += items;
      },
    });
    return {
      unit: 'objects',
      items: objects,
      details: { ms_per_push: perPush, peak_rss_mib_after_push: peakAfterPush },
    };
  });
}
