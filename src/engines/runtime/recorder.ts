/**
 * Records activity into a profile (the baseline being learned, or the ongoing activity) and says
 * whether the baseline covers it. Coverage is per position in the process tree: a program, file
 * or connection is covered when the baseline's node of the same lineage holds it (a write is
 * covered only by a baseline write). Past a cap nothing new is stored, but coverage is still
 * answered, so drift is never missed because memory ran out.
 */
import { createHash } from 'node:crypto';
import type {
  ActivityProfile,
  ConnectionRecord,
  EngineLimits,
  FileRecord,
  ProcessNode,
  ProgramRecord,
} from './state.js';
import { LINEAGE_SEPARATOR, parentLineage } from './state.js';
import { normalizeArg, normalizeFilePath } from './variable-tokens.js';

export interface Recorder {
  profile: ActivityProfile;
  /** null while learning: everything is then covered by definition */
  baseline: ActivityProfile | null;
  limits: EngineLimits;
}

export const nodeIdOf = (lineage: string): string =>
  createHash('sha256').update(lineage).digest('hex').slice(0, 16);

const sameArgs = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && a.every((x, i) => x === b[i]);

/** The node of a lineage, created with its missing ancestors; null past the node cap. */
export function ensureNode(
  rec: Recorder,
  lineage: string,
  at: string,
  ids: { uid: number; gid: number },
): ProcessNode | null {
  const existing = rec.profile.nodes[lineage];
  if (existing) return existing;
  const parent = parentLineage(lineage);
  if (parent !== null) ensureNode(rec, parent, at, rec.baseline?.nodes[parent] ?? ids);
  if (rec.profile.totals.nodes >= rec.limits.maxProcessNodes) {
    rec.profile.dropped.nodes++;
    return null;
  }
  const node: ProcessNode = {
    id: nodeIdOf(lineage),
    parent,
    comm: parent === null ? lineage : lineage.slice(parent.length + LINEAGE_SEPARATOR.length),
    uid: ids.uid,
    gid: ids.gid,
    firstSeen: at,
    lastSeen: at,
    execCount: 0,
    drift: rec.baseline !== null && !rec.baseline.nodes[lineage],
    programs: {},
    files: {},
    connections: {},
  };
  rec.profile.nodes[lineage] = node;
  rec.profile.totals.nodes++;
  return node;
}

export interface ProgramRun {
  comm: string;
  exe: string;
  args: string[];
}

export interface Coverage {
  covered: boolean;
  /** exec only: the baseline ran the same program at this position with other arguments */
  knownProgram?: boolean;
}

export function recordProgram(
  rec: Recorder,
  node: ProcessNode | null,
  lineage: string,
  run: ProgramRun,
  at: string,
): Coverage {
  const args = run.args.slice(0, rec.limits.maxArgs).map((arg) => arg.slice(0, rec.limits.maxArgLength));
  const pattern = args.map(normalizeArg);
  const key = [run.comm, run.exe, ...pattern].join('\u0000');
  const baseNode = rec.baseline?.nodes[lineage];
  // An event without the executable path (a Falco rule that does not print proc.exepath) is
  // covered by the same name and arguments run from any path.
  const covered =
    rec.baseline === null ||
    baseNode?.programs[key] !== undefined ||
    (run.exe === '' &&
      baseNode !== undefined &&
      Object.values(baseNode.programs).some(
        (p) => p.comm === run.comm && sameArgs(p.hasPattern ? p.args : p.args.map(normalizeArg), pattern),
      ));
  const knownProgram =
    !covered &&
    baseNode !== undefined &&
    Object.values(baseNode.programs).some((p) => p.comm === run.comm && p.exe === run.exe);
  if (!node) return { covered, knownProgram };
  node.execCount++;
  node.lastSeen = at;
  const existing = node.programs[key];
  if (existing) {
    existing.count++;
    existing.lastSeen = at;
    if (!existing.hasPattern && !sameArgs(existing.args, args)) {
      existing.hasPattern = true;
      existing.args = pattern;
    }
    const known = existing.sampleArgs.some((sample) => sameArgs(sample, args));
    if (!known && existing.sampleArgs.length < rec.limits.maxSampleArgs) existing.sampleArgs.push(args);
  } else if (rec.profile.totals.programs >= rec.limits.maxPrograms) {
    rec.profile.dropped.programs++;
  } else {
    const program: ProgramRecord = {
      comm: run.comm,
      exe: run.exe,
      args,
      hasPattern: false,
      sampleArgs: [args],
      firstSeen: at,
      lastSeen: at,
      count: 1,
      drift: !covered,
    };
    node.programs[key] = program;
    rec.profile.totals.programs++;
  }
  if (!covered) node.drift = true;
  return { covered, knownProgram };
}

export function recordFile(
  rec: Recorder,
  node: ProcessNode | null,
  lineage: string,
  rawPath: string,
  write: boolean,
  at: string,
): Coverage {
  const path = normalizeFilePath(rawPath);
  const base = rec.baseline?.nodes[lineage]?.files[path];
  const covered = rec.baseline === null || (base !== undefined && (!write || base.written));
  if (!node) return { covered };
  const existing = node.files[path];
  if (existing) {
    existing.count++;
    existing.lastSeen = at;
    existing.written ||= write;
    if (!covered) existing.drift = true;
  } else if (rec.profile.totals.files >= rec.limits.maxFiles) {
    rec.profile.dropped.files++;
  } else {
    const file: FileRecord = { path, written: write, firstSeen: at, lastSeen: at, count: 1, drift: !covered };
    node.files[path] = file;
    rec.profile.totals.files++;
  }
  if (!covered) node.drift = true;
  return { covered };
}

export type ConnectionSeen = Pick<
  ConnectionRecord,
  'address' | 'port' | 'hostname' | 'k8sName' | 'k8sNamespace' | 'trustedCIDR' | 'trustedName'
>;

/**
 * A destination is identified by its Kubernetes name, else its hostname, else its address:
 * pod addresses change with every restart, names do not.
 */
export function connectionKey(
  c: Pick<ConnectionRecord, 'address' | 'port' | 'hostname' | 'k8sName' | 'k8sNamespace'>,
) {
  if (c.k8sName) return `k8s:${c.k8sNamespace}/${c.k8sName}:${c.port}`;
  if (c.hostname) return `host:${c.hostname}:${c.port}`;
  return c.address.includes(':') ? `[${c.address}]:${c.port}` : `${c.address}:${c.port}`;
}

export function recordConnection(
  rec: Recorder,
  node: ProcessNode | null,
  lineage: string,
  seen: ConnectionSeen,
  at: string,
): Coverage {
  const key = connectionKey(seen);
  const covered = rec.baseline === null || rec.baseline.nodes[lineage]?.connections[key] !== undefined;
  if (!node) return { covered };
  const existing = node.connections[key];
  if (existing) {
    Object.assign(existing, seen);
    existing.count++;
    existing.lastSeen = at;
  } else if (rec.profile.totals.connections >= rec.limits.maxConnections) {
    rec.profile.dropped.connections++;
  } else {
    node.connections[key] = { ...seen, firstSeen: at, lastSeen: at, count: 1, drift: !covered };
    rec.profile.totals.connections++;
  }
  if (!covered) node.drift = true;
  return { covered };
}
