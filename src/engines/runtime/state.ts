/**
 * The engine's state per workload container, plain JSON so storage can persist it between pushes
 * (`applyEvents(state, events) -> state`). Processes are aggregated by lineage (the chain of
 * process names from the container's first process: `nginx > sh > curl`), not by pid, so the same
 * behaviour in another pod or after a restart lands on the same node.
 *
 * Memory is bounded by EngineLimits: past a cap, new distinct items are not stored (the profile's
 * `dropped` counters say how many), while drift is still detected and raises signals.
 */
import type { Severity } from './severity.js';

export interface LearningWindow {
  /** the baseline is captured this long after the container's first event (event time) */
  durationSeconds: number;
  /** ... or once this many events were learned, whichever comes first; null: no count limit */
  maxEvents: number | null;
}

export const DEFAULT_LEARNING_WINDOW: LearningWindow = { durationSeconds: 3600, maxEvents: null };

export interface EngineLimits {
  maxProcessNodes: number;
  maxPrograms: number;
  maxFiles: number;
  maxConnections: number;
  maxSampleArgs: number;
  maxArgs: number;
  maxArgLength: number;
  maxTreeDepth: number;
  maxTrackedPids: number;
  maxWrittenPaths: number;
  maxSignals: number;
}

export const DEFAULT_LIMITS: EngineLimits = {
  maxProcessNodes: 256,
  maxPrograms: 512,
  maxFiles: 1024,
  maxConnections: 512,
  maxSampleArgs: 5,
  maxArgs: 32,
  maxArgLength: 256,
  maxTreeDepth: 16,
  maxTrackedPids: 2048,
  maxWrittenPaths: 256,
  maxSignals: 100,
};

export interface WorkloadKey {
  cluster: string;
  namespace: string;
  workloadKind: string;
  workloadName: string;
  containerName: string;
}

export interface ProgramRecord {
  comm: string;
  exe: string;
  /** the arguments, or their pattern (placeholders) once runs differed */
  args: string[];
  hasPattern: boolean;
  sampleArgs: string[][];
  firstSeen: string;
  lastSeen: string;
  count: number;
  drift: boolean;
}

export interface FileRecord {
  path: string;
  written: boolean;
  firstSeen: string;
  lastSeen: string;
  count: number;
  drift: boolean;
}

export interface ConnectionRecord {
  address: string;
  port: number;
  hostname: string;
  k8sName: string;
  k8sNamespace: string;
  trustedCIDR: string;
  trustedName: string;
  firstSeen: string;
  lastSeen: string;
  count: number;
  drift: boolean;
}

export interface ProcessNode {
  /** stable id derived from the lineage: the same in baseline and ongoing */
  id: string;
  /** lineage key of the parent node, null for a root */
  parent: string | null;
  comm: string;
  uid: number;
  gid: number;
  firstSeen: string;
  lastSeen: string;
  execCount: number;
  drift: boolean;
  programs: Record<string, ProgramRecord>;
  files: Record<string, FileRecord>;
  connections: Record<string, ConnectionRecord>;
}

export interface ItemCounts {
  nodes: number;
  programs: number;
  files: number;
  connections: number;
}

export interface ActivityProfile {
  startedAt: string | null;
  lastEventAt: string | null;
  eventCount: number;
  /** events not covered by the baseline (always 0 while learning) */
  driftEvents: number;
  nodes: Record<string, ProcessNode>;
  totals: ItemCounts;
  dropped: ItemCounts;
}

export interface Signal {
  rule: string;
  severity: Severity;
  category: string;
  subject: string;
  detail: string;
  count: number;
  firstSeen: string;
  lastSeen: string;
  processIds: string[];
  tactics: string[];
  techniques: string[];
  malicious: boolean;
}

export interface WorkloadContainerState {
  version: 1;
  key: WorkloadKey;
  container: { id: string; name: string; imageName: string; imageDigest: string; runtime: string };
  kubernetes: {
    cluster: string;
    namespace: string;
    pod: string;
    node: string;
    workloadKind: string;
    workloadName: string;
  };
  /** null while the baseline is being learned */
  baselineCapturedAt: string | null;
  /** the baseline being learned, frozen once captured */
  baseline: ActivityProfile;
  /** activity since the capture, each item marked with drift */
  ongoing: ActivityProfile;
  /** `<first 12 characters of the container id>#<pid>` -> lineage key, oldest first (bounded) */
  pids: Record<string, string>;
  /** raw paths opened for writing, oldest first (bounded): a later exec of one is a dropped binary */
  writtenPaths: string[];
  signals: Record<string, Signal>;
  droppedSignals: number;
  firstEventAt: string;
  lastEventAt: string;
}

const zeroCounts = (): ItemCounts => ({ nodes: 0, programs: 0, files: 0, connections: 0 });

export function emptyProfile(startedAt: string | null = null): ActivityProfile {
  return {
    startedAt,
    lastEventAt: null,
    eventCount: 0,
    driftEvents: 0,
    nodes: {},
    totals: zeroCounts(),
    dropped: zeroCounts(),
  };
}

/** Lineage keys join process names with this separator. */
export const LINEAGE_SEPARATOR = ' > ';

export function parentLineage(lineage: string): string | null {
  const at = lineage.lastIndexOf(LINEAGE_SEPARATOR);
  return at === -1 ? null : lineage.slice(0, at);
}

export const lineageDepth = (lineage: string): number => lineage.split(LINEAGE_SEPARATOR).length;
