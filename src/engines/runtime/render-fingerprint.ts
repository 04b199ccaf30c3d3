/**
 * The description's Fingerprint shape from an engine profile: one container (the workload
 * container the state is for) whose processes nest by parent, each with its programs, files,
 * connections, trusted IP prefixes and repetition. `timestamp` of an item is when it was first
 * seen; `repetition.recentTimestamp` the last time the process ran.
 *
 * @example
 *   const fingerprint = truncateFingerprint(renderFingerprint(state, 'ongoing'), { childrenLimit: 10 });
 */
import type { ActivityProfile, ProcessNode, WorkloadContainerState } from './state.js';

export interface FingerprintProgram {
  args: string[];
  comm: string;
  drift: boolean;
  hasPattern: boolean;
  sampleArgs: string[][];
  timestamp: string;
}

export interface FingerprintFile {
  drift: boolean;
  path: string;
  timestamp: string;
}

export interface FingerprintConnection {
  address: string;
  drift: boolean;
  hostname: string;
  k8sName: string;
  k8sNamespace: string;
  port: number;
  timestamp: string;
  trustedCIDR: string;
}

export interface FingerprintProcess {
  children: FingerprintProcess[];
  connections: FingerprintConnection[];
  drift: boolean;
  files: FingerprintFile[];
  gid: number;
  id: string;
  parentId: string;
  programs: FingerprintProgram[];
  repetition: { execCount: number; recentTimestamp: string };
  timestamp: string;
  trustedIPPrefixes: { cidr: string; name: string; port: number }[];
  uid: number;
}

export interface Fingerprint {
  apiVersion: string;
  kind: string;
  metadata: { creationTimestamp: string };
  containers: {
    id: string;
    imageDigest: string;
    imageName: string;
    name: string;
    processes: FingerprintProcess[];
  }[];
}

export const FINGERPRINT_API_VERSION = 'posture.dev/v1';

const byTime = <T extends { timestamp: string }>(items: T[], key: (item: T) => string): T[] =>
  items.sort((a, b) => a.timestamp.localeCompare(b.timestamp) || key(a).localeCompare(key(b)));

function renderNode(node: ProcessNode, parentId: string, children: FingerprintProcess[]): FingerprintProcess {
  const connections = Object.values(node.connections);
  const prefixes = new Map<string, { cidr: string; name: string; port: number }>();
  for (const c of connections) {
    if (c.trustedCIDR)
      prefixes.set(`${c.trustedCIDR}|${c.port}`, { cidr: c.trustedCIDR, name: c.trustedName, port: c.port });
  }
  return {
    children,
    connections: byTime(
      connections.map((c) => ({
        address: c.address,
        drift: c.drift,
        hostname: c.hostname,
        k8sName: c.k8sName,
        k8sNamespace: c.k8sNamespace,
        port: c.port,
        timestamp: c.firstSeen,
        trustedCIDR: c.trustedCIDR,
      })),
      (c) => `${c.address}:${c.port}`,
    ),
    drift: node.drift,
    files: byTime(
      Object.values(node.files).map((f) => ({ drift: f.drift, path: f.path, timestamp: f.firstSeen })),
      (f) => f.path,
    ),
    gid: node.gid,
    id: node.id,
    parentId,
    programs: byTime(
      Object.values(node.programs).map((p) => ({
        args: p.args,
        comm: p.comm,
        drift: p.drift,
        hasPattern: p.hasPattern,
        sampleArgs: p.sampleArgs,
        timestamp: p.firstSeen,
      })),
      (p) => `${p.comm} ${p.args.join(' ')}`,
    ),
    repetition: { execCount: node.execCount, recentTimestamp: node.lastSeen },
    timestamp: node.firstSeen,
    trustedIPPrefixes: [...prefixes.values()].sort((a, b) => a.cidr.localeCompare(b.cidr) || a.port - b.port),
    uid: node.uid,
  };
}

function renderTree(profile: ActivityProfile): FingerprintProcess[] {
  const childrenOf = new Map<string | null, string[]>();
  for (const [lineage, node] of Object.entries(profile.nodes)) {
    // A node whose parent was dropped at the cap hangs at the top rather than vanishing.
    const parent = node.parent !== null && profile.nodes[node.parent] ? node.parent : null;
    childrenOf.set(parent, [...(childrenOf.get(parent) ?? []), lineage]);
  }
  const build = (lineage: string, parentId: string): FingerprintProcess => {
    const node = profile.nodes[lineage]!;
    const children = (childrenOf.get(lineage) ?? []).map((child) => build(child, node.id));
    return renderNode(
      node,
      parentId,
      byTime(children, (c) => c.id),
    );
  };
  return byTime(
    (childrenOf.get(null) ?? []).map((root) => build(root, '')),
    (p) => p.id,
  );
}

export function renderFingerprint(state: WorkloadContainerState, which: 'baseline' | 'ongoing'): Fingerprint {
  const profile = which === 'baseline' ? state.baseline : state.ongoing;
  const created =
    which === 'baseline'
      ? (state.baselineCapturedAt ?? state.baseline.startedAt ?? state.firstEventAt)
      : (state.ongoing.startedAt ?? state.baselineCapturedAt ?? state.lastEventAt);
  return {
    apiVersion: FINGERPRINT_API_VERSION,
    kind: 'Fingerprint',
    metadata: { creationTimestamp: created },
    containers: [
      {
        id: state.container.id,
        imageDigest: state.container.imageDigest,
        imageName: state.container.imageName,
        name: state.container.name,
        processes: renderTree(profile),
      },
    ],
  };
}

export interface TruncateOptions {
  /** children kept per process (drifted ones first, then the most recent) */
  childrenLimit?: number;
  /** programs, files and connections kept per process (drifted ones first, then the most recent) */
  mostRecentLimit?: number;
}

function keep<T>(
  items: T[],
  limit: number | undefined,
  drift: (item: T) => boolean,
  recent: (item: T) => string,
): T[] {
  if (limit === undefined || items.length <= limit) return items;
  const chosen = new Set(
    [...items]
      .sort((a, b) => Number(drift(b)) - Number(drift(a)) || recent(b).localeCompare(recent(a)))
      .slice(0, limit),
  );
  return items.filter((item) => chosen.has(item)); // the kept items stay in their display order
}

export function truncateFingerprint(fingerprint: Fingerprint, options: TruncateOptions): Fingerprint {
  const { childrenLimit, mostRecentLimit } = options;
  const prune = (process: FingerprintProcess): FingerprintProcess => ({
    ...process,
    children: keep(
      process.children,
      childrenLimit,
      (c) => c.drift,
      (c) => c.repetition.recentTimestamp,
    ).map(prune),
    programs: keep(
      process.programs,
      mostRecentLimit,
      (p) => p.drift,
      (p) => p.timestamp,
    ),
    files: keep(
      process.files,
      mostRecentLimit,
      (f) => f.drift,
      (f) => f.timestamp,
    ),
    connections: keep(
      process.connections,
      mostRecentLimit,
      (c) => c.drift,
      (c) => c.timestamp,
    ),
  });
  return {
    ...fingerprint,
    containers: fingerprint.containers.map((container) => ({
      ...container,
      processes: keep(
        container.processes,
        childrenLimit,
        (p) => p.drift,
        (p) => p.repetition.recentTimestamp,
      ).map(prune),
    })),
  };
}
