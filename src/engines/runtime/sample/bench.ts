/**
 * Measures the engine's processing rate on a synthetic 100,000-event stream (20 workloads, mixed
 * exec/file/connect/http events over 8 hours, so most of it is compared with a captured baseline).
 * Not a test: run with `npx tsx src/engines/runtime/sample/bench.ts [events]`.
 */
import { applyEvents } from '../engine.js';
import type { RuntimeEvent } from '../event-schema.js';
import { observeHttpRequests } from '../http-observations.js';
import { parseRuntimeEvents } from '../parse-events.js';
import type { WorkloadContainerState } from '../state.js';
import { groupByWorkloadContainer } from '../workload-key.js';
import { ShopTimeline, type Workload } from './timeline.js';

const HOURS = 8;

function workloads(count: number): Workload[] {
  return Array.from({ length: count }, (_, i) => ({
    container: {
      id: `containerd://${i.toString(16).padStart(64, '0')}`,
      name: 'main',
      image_name: `ghcr.io/bench/svc-${i}:1.0.${i}`,
    },
    kubernetes: {
      cluster: 'bench',
      namespace: `ns-${i % 4}`,
      pod: `svc-${i}-6b8d5f9c7d-x2v9q`,
      node: `node-${i % 3}`,
      workload_kind: 'Deployment',
      workload_name: `svc-${i}`,
    },
  }));
}

export function syntheticStream(total: number): RuntimeEvent[] {
  const t = new ShopTimeline('2025-03-03T00:00:00.000Z', 7);
  const all = workloads(20);
  for (const w of all)
    t.exec(w, t.time(0), { pid: 1, ppid: 0, comm: 'server', exe: '/app/server', uid: 1000, gid: 1000 }, [
      '--port',
      '8080',
    ]);
  for (let i = all.length; i < total; i++) {
    const w = all[t.int(0, all.length - 1)]!;
    const when = t.time((i / total) * HOURS * 60);
    const kind = t.int(0, 9);
    if (kind < 2) {
      const job = ['backup', 'report', 'sync', 'cleanup'][t.int(0, 3)]!;
      t.exec(w, when, { pid: t.pid(), ppid: 1, comm: job, exe: `/app/bin/${job}`, uid: 1000, gid: 1000 }, [
        '--id',
        t.uuid(),
        '--n',
        String(t.int(1, 999)),
      ]);
    } else if (kind < 5) {
      t.open(
        w,
        when,
        { pid: 1, comm: 'server' },
        `/app/data/${t.int(0, 40)}/part-${t.int(0, 9999)}.bin`,
        t.int(0, 3) === 0 ? ['O_WRONLY', 'O_CREAT'] : ['O_RDONLY'],
      );
    } else if (kind < 8) {
      t.connect(
        w,
        when,
        { pid: 1, comm: 'server' },
        { address: `10.96.${t.int(0, 3)}.${t.int(1, 30)}`, port: [5432, 6379, 8080][t.int(0, 2)]! },
      );
    } else {
      // One request in five writes, so a filter on the method has rows to find.
      const item = t.int(1, 99999);
      const request =
        t.int(0, 4) === 0
          ? { method: 'POST', path: `/api/items/${item}/events`, status: 201 }
          : { method: 'GET', path: `/api/items/${item}?page=${t.int(1, 9)}`, status: 200 };
      t.http(w, when, request, '10.244.0.9', {
        address: `10.96.1.${t.int(1, 30)}`,
        port: 8080,
        workload_name: `svc-${t.int(0, 19)}`,
        workload_kind: 'Deployment',
        namespace: 'ns-0',
      });
    }
  }
  return t.events() as RuntimeEvent[];
}

/** Wall time and this process's CPU time: on a shared machine the CPU rate is the steadier figure. */
function measure<T>(label: string, events: number, work: () => T): T {
  const started = process.hrtime.bigint();
  const cpu = process.cpuUsage();
  const result = work();
  const wall = Number(process.hrtime.bigint() - started) / 1e9;
  const used = process.cpuUsage(cpu);
  const cpuSeconds = (used.user + used.system) / 1e6;
  const rate = (seconds: number) =>
    Math.round(events / seconds)
      .toLocaleString('en-US')
      .padStart(9);
  console.log(
    `${label.padEnd(44)} wall ${wall.toFixed(2)} s ${rate(wall)}/s   cpu ${cpuSeconds.toFixed(2)} s ${rate(cpuSeconds)}/s`,
  );
  return result;
}

if (process.argv[1]?.endsWith('bench.ts')) {
  const total = Number(process.argv[2] ?? 100_000);
  const body = Buffer.from(
    `${syntheticStream(total)
      .map((e) => JSON.stringify(e))
      .join('\n')}\n`,
  );
  console.log(
    `${total} events, ${(body.length / 1024 / 1024).toFixed(1)} MiB NDJSON, Node ${process.version}`,
  );
  const parsed = measure('parse + validate NDJSON', total, () => parseRuntimeEvents(body));
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.error));
  const options = { trustedPrefixes: [{ cidr: '10.96.0.0/12', name: 'services' }] };
  measure('fingerprints, one push', total, () => {
    for (const group of groupByWorkloadContainer(parsed.events, 'c1').values())
      applyEvents(null, group.key, group.events, options);
  });
  let stateBytes = 0;
  measure('fingerprints, pushes of 5,000 with JSON state', total, () => {
    const states = new Map<string, string>();
    for (let i = 0; i < parsed.events.length; i += 5000) {
      for (const group of groupByWorkloadContainer(parsed.events.slice(i, i + 5000), 'c1').values()) {
        const previous = states.get(group.id);
        const state = applyEvents(
          previous ? (JSON.parse(previous) as WorkloadContainerState) : null,
          group.key,
          group.events,
          options,
        );
        states.set(group.id, JSON.stringify(state));
        stateBytes = Math.max(stateBytes, states.get(group.id)!.length);
      }
    }
  });
  console.log(`largest state: ${(stateBytes / 1024).toFixed(0)} KiB of JSON`);
  measure('HTTP observations', total, () =>
    observeHttpRequests(parsed.events, { clusterId: 'c1', ...options }),
  );
  measure('end to end (parse + fingerprints + HTTP)', total, () => {
    const again = parseRuntimeEvents(body);
    if (!again.ok) return;
    for (const group of groupByWorkloadContainer(again.events, 'c1').values())
      applyEvents(null, group.key, group.events, options);
    observeHttpRequests(again.events, { clusterId: 'c1', ...options });
  });
}
