/**
 * A text summary of a V8 CPU profile (`node --cpu-prof`, what the phase replays' `--prof dir`
 * and `bench/request-rounds.ts --prof` write): the functions taking the most samples, by self time
 * and by inclusive time (a function counted once per sample however deep it recurses), as shares
 * of the busy samples (idle excluded), and the call paths leading to one function. The evidence
 * docs/performance.md quotes ("`writev` 38% of the busy samples") comes from this summary. Not a test.
 *
 *   npx tsx bench/profile-summary.ts /tmp/prof/CPU.*.cpuprofile [--top 40] [--callers writev] [--depth 4]
 */
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

/** The parts of the `.cpuprofile` format (Chrome DevTools protocol `Profile`) read here. */
export interface CpuProfile {
  nodes: {
    id: number;
    callFrame: { functionName: string; url: string; lineNumber: number };
    children?: number[];
  }[];
  samples: number[];
  /** microseconds before each sample */
  timeDeltas: number[];
}

export interface Entry {
  name: string;
  ms: number;
  /** of the busy samples */
  share: number;
}

export interface Summary {
  totalMs: number;
  busyMs: number;
  self: Entry[];
  inclusive: Entry[];
}

type ProfileNode = CpuProfile['nodes'][number];

/** `functionName file:line`: the file's last two path parts, lines counted from 1. */
function nameOf(node: ProfileNode): string {
  const { functionName, url, lineNumber } = node.callFrame;
  return `${functionName || '(anonymous)'} ${url.split('/').slice(-2).join('/')}:${lineNumber + 1}`;
}

/** The tree's parent links, each node's sampled time in ms, and the sampled and busy totals. */
function index(profile: CpuProfile) {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parentOf = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
  const sampledMs = new Map<number, number>();
  let totalMs = 0;
  let idleMs = 0;
  profile.samples.forEach((id, i) => {
    const ms = (profile.timeDeltas[i] ?? 0) / 1000;
    sampledMs.set(id, (sampledMs.get(id) ?? 0) + ms);
    totalMs += ms;
    if (byId.get(id)?.callFrame.functionName === '(idle)') idleMs += ms;
  });
  return { byId, parentOf, sampledMs, totalMs, busyMs: totalMs - idleMs };
}

const ranked = (times: Map<string, number>, busyMs: number, top: number): Entry[] =>
  [...times]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([name, ms]) => ({ name, ms, share: busyMs > 0 ? ms / busyMs : 0 }));

export function summarize(profile: CpuProfile, top = 40): Summary {
  const { byId, parentOf, sampledMs, totalMs, busyMs } = index(profile);
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  for (const [id, ms] of sampledMs) {
    const node = byId.get(id);
    if (!node || node.callFrame.functionName === '(idle)') continue;
    self.set(nameOf(node), (self.get(nameOf(node)) ?? 0) + ms);
    // Each function once per stack: a recursive one is not counted once per frame.
    const onStack = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parentOf.get(at)) {
      const frame = byId.get(at);
      if (frame) onStack.add(nameOf(frame));
    }
    for (const name of onStack) inclusive.set(name, (inclusive.get(name) ?? 0) + ms);
  }
  return { totalMs, busyMs, self: ranked(self, busyMs, top), inclusive: ranked(inclusive, busyMs, top) };
}

/**
 * The call paths into `functionName` (its callers, `depth` frames up), with the inclusive time
 * of the function under each path, most first.
 */
export function callersOf(profile: CpuProfile, functionName: string, depth = 4): Entry[] {
  const { byId, parentOf, sampledMs, busyMs } = index(profile);
  const below = new Map<number, number>();
  for (const [id, ms] of sampledMs)
    for (let at: number | undefined = id; at !== undefined; at = parentOf.get(at))
      below.set(at, (below.get(at) ?? 0) + ms);
  const paths = new Map<string, number>();
  for (const node of profile.nodes) {
    if (node.callFrame.functionName !== functionName) continue;
    const callers: string[] = [];
    for (let at = parentOf.get(node.id); at !== undefined && callers.length < depth; at = parentOf.get(at)) {
      const caller = byId.get(at);
      if (caller) callers.push(nameOf(caller));
    }
    const path = callers.join(' < ');
    paths.set(path, (paths.get(path) ?? 0) + (below.get(node.id) ?? 0));
  }
  return ranked(paths, busyMs, paths.size);
}

function printEntries(title: string, entries: Entry[]) {
  console.log(`\n${title}`);
  for (const { name, ms, share } of entries)
    console.log(`${ms.toFixed(0).padStart(9)} ms ${(share * 100).toFixed(1).padStart(5)}%  ${name}`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: {
      top: { type: 'string', default: '40' },
      callers: { type: 'string' },
      depth: { type: 'string', default: '4' },
    },
  });
  if (positionals.length === 0)
    throw new Error('usage: profile-summary.ts <file.cpuprofile>... [--top n] [--callers fn]');
  for (const file of positionals) {
    const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
    const summary = summarize(profile, Number(values.top));
    console.log(
      `${file}: ${(summary.totalMs / 1000).toFixed(1)} s sampled, ${(summary.busyMs / 1000).toFixed(1)} s busy`,
    );
    if (values.callers) {
      printEntries(`callers of ${values.callers}`, callersOf(profile, values.callers, Number(values.depth)));
      continue;
    }
    printEntries('self', summary.self);
    printEntries('inclusive', summary.inclusive);
  }
}
