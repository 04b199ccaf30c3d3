/**
 * The suite's runtime phase on its own, repeatable (bench/phase-replay.ts): `prepare` builds a
 * template database holding what the suite has stored when the measured account's runtime pushes
 * start (its clusters and pods); `run` clones it, starts a built server on the clone and pushes
 * the synthetic runtime stream through the HTTP endpoint in NDJSON bodies of 10,000 events, one
 * after the other, as bench/seed.ts does. It prints events/s and the CPU ms per event of the
 * server and of PostgreSQL, so a change can be measured in alternating rounds against a copy of
 * the previous build.
 *
 *   DATABASE_URL=postgres://posture:posture@127.0.0.1:5432/posture \
 *     npx tsx bench/runtime-phase.ts prepare posture_runtime_tpl [size]
 *   DATABASE_URL=... npx tsx bench/runtime-phase.ts run posture_runtime_tpl [dist-dir] [--prof dir]
 *     [--events n] [--memory]
 *
 * `--events` defaults to the template size's runtime events. `--memory` adds the server's RSS
 * after the pushes and after an idle wait of IDLE_MS (default 125 s, past the state cache's 60 s).
 * Starts `dist/server.js` unless told another build: `npm run build:server` first. Not a test.
 */
import { prepareTemplate, pushMeasuredClusters, replayCommand, runOnClone } from './phase-replay.js';
import { runtimePushes } from './seed.js';
import { memoryOf } from './server-process.js';
import { SIZES, type SizeName } from './sizes.js';

const { command, template, rest } = replayCommand('runtime-phase.ts');

if (command === 'prepare') {
  // The measured account up to its runtime pushes: clusters and pods, as populateAccount pushes them.
  await prepareTemplate(template, (rest[0] ?? 'small') as SizeName, pushMeasuredClusters);
} else {
  await runOnClone(template, rest, async (client, state, serverPid) => {
    const eventsAt = rest.indexOf('--events');
    const events = eventsAt >= 0 ? Number(rest[eventsAt + 1]) : SIZES[state.size].dataset.runtimeEvents;
    const url = `/accounts/${state.accountId}/clusters/${state.clusterId}/ingest/runtime`;
    const bodies = [...runtimePushes(events)];
    const msPerPush: number[] = [];
    for (const { body } of bodies) {
      const started = performance.now();
      await client.push(url, body, 'application/x-ndjson');
      msPerPush.push(Math.round(performance.now() - started));
    }
    // The phase's own rate leaves out generating the stream, which runOnClone's clock includes.
    const pushing = msPerPush.reduce((sum, ms) => sum + ms, 0) / 1000;
    const memory: Record<string, unknown> = {};
    if (rest.includes('--memory')) {
      // The server's memory after the pushes, then once the state cache's idle time has passed.
      memory.after_pushes = memoryOf(serverPid);
      await new Promise((resolve) => setTimeout(resolve, Number(process.env.IDLE_MS ?? 125_000)));
      memory.after_idle = memoryOf(serverPid);
    }
    return {
      unit: 'events',
      items: events,
      details: { events_per_s_pushing: Math.round(events / pushing), ms_per_push: msPerPush, ...memory },
    };
  });
}
