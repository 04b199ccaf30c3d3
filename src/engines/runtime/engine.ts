/**
 * The fingerprint engine: state in, events in, new state out (the input state is not changed;
 * advanceState changes it in place, for a caller that owns it).
 * While the learning window is open, events build the baseline; at its end (time since the
 * container's first event, or a number of learned events) the baseline is captured and later
 * activity is compared with it: what it does not cover is marked `drift: true` and run through
 * the severity rules, whose hits accumulate as the insight's signals. Events are applied in
 * timestamp order within a push, pushes in arrival order.
 *
 * @example
 *   for (const group of groupByWorkloadContainer(events, clusterId).values()) {
 *     states[group.id] = applyEvents(states[group.id] ?? null, group.key, group.events, { trustedPrefixes });
 *   }
 */
import type { FileOpenEvent, NetworkConnectEvent, ProcessExecEvent, RuntimeEvent } from './event-schema.js';
import { UNKNOWN_ID } from './falco.js';
import { createPrefixMatcher, isInternalAddress, type PrefixMatcher, type TrustedPrefix } from './ip.js';
import { instanceKey, ProcessTable } from './process-table.js';
import {
  ensureNode,
  nodeIdOf,
  type Recorder,
  recordConnection,
  recordFile,
  recordProgram,
} from './recorder.js';
import { alertRule, connectRules, execRules, fileRules, type RuleHit } from './rules.js';
import { SignalBook } from './signals.js';
import {
  DEFAULT_LEARNING_WINDOW,
  DEFAULT_LIMITS,
  type EngineLimits,
  emptyProfile,
  type LearningWindow,
  LINEAGE_SEPARATOR,
  lineageDepth,
  parentLineage,
  type WorkloadContainerState,
  type WorkloadKey,
} from './state.js';

export interface EngineOptions {
  window?: Partial<LearningWindow>;
  /** the account's trusted IP prefixes: connections to them are marked with trustedCIDR */
  trustedPrefixes?: readonly TrustedPrefix[];
  limits?: Partial<EngineLimits>;
}

const WRITE_FLAGS = new Set(['O_WRONLY', 'O_RDWR', 'O_CREAT', 'O_TRUNC', 'O_APPEND']);

/** The state is plain JSON by contract; a JSON round trip copies it faster than structuredClone. */
const cloneState = (state: WorkloadContainerState): WorkloadContainerState =>
  JSON.parse(JSON.stringify(state));

const byTimestamp = (a: RuntimeEvent, b: RuntimeEvent) =>
  a.timestamp < b.timestamp ? -1 : a.timestamp > b.timestamp ? 1 : 0;

export function newWorkloadState(key: WorkloadKey, first: RuntimeEvent): WorkloadContainerState {
  return {
    version: 1,
    key,
    container: { id: '', name: key.containerName, imageName: '', imageDigest: '', runtime: '' },
    kubernetes: {
      cluster: '',
      namespace: key.namespace,
      pod: '',
      node: '',
      workloadKind: key.workloadKind,
      workloadName: key.workloadName,
    },
    baselineCapturedAt: null,
    baseline: emptyProfile(),
    ongoing: emptyProfile(),
    pids: {},
    writtenPaths: [],
    signals: {},
    droppedSignals: 0,
    firstEventAt: first.timestamp,
    lastEventAt: first.timestamp,
  };
}

export function applyEvents(
  previous: WorkloadContainerState | null,
  key: WorkloadKey,
  events: readonly RuntimeEvent[],
  options: EngineOptions = {},
): WorkloadContainerState {
  return advanceState(previous && cloneState(previous), key, events, options);
}

/**
 * applyEvents for a caller that owns `state` and has no further use for it as it was (ingestion:
 * a state just parsed from its row): the events are applied to it in place and it is returned, or
 * a new state when it is null. Skips the copy, which for states of a few hundred KiB cost as much
 * as applying a 10,000-event push (docs/performance.md, "Runtime ingestion and the CSV export").
 */
export function advanceState(
  state: WorkloadContainerState | null,
  key: WorkloadKey,
  events: readonly RuntimeEvent[],
  options: EngineOptions = {},
): WorkloadContainerState {
  const relevant = events.filter((event) => event.type !== 'http_request').sort(byTimestamp);
  const first = relevant[0];
  if (!first) {
    if (state) return state;
    throw new Error('applyEvents needs a previous state or at least one fingerprint event');
  }
  const target = state ?? newWorkloadState(key, first);
  const run = new Run(target, options);
  for (const event of relevant) run.apply(event);
  run.finish();
  return target;
}

/** Captures a baseline whose window has passed on the wall clock though no event arrived since. */
export function captureIfWindowElapsed(
  previous: WorkloadContainerState,
  now: string,
  options: EngineOptions = {},
): WorkloadContainerState {
  const state = cloneState(previous);
  const run = new Run(state, options);
  run.closeWindowBefore(now);
  run.finish();
  return state;
}

class Run {
  private readonly window: LearningWindow;
  private readonly limits: EngineLimits;
  private readonly trusted: PrefixMatcher;
  private readonly written: Set<string>;
  private readonly processes: ProcessTable;
  private readonly signals: SignalBook;
  private readonly nodeIds = new Map<string, string>();

  constructor(
    private readonly state: WorkloadContainerState,
    options: EngineOptions,
  ) {
    this.window = { ...DEFAULT_LEARNING_WINDOW, ...options.window };
    this.limits = { ...DEFAULT_LIMITS, ...options.limits };
    this.trusted = createPrefixMatcher(options.trustedPrefixes ?? []);
    this.written = new Set(state.writtenPaths);
    this.processes = new ProcessTable(state, this.limits.maxTrackedPids);
    this.signals = new SignalBook(state, this.limits.maxSignals);
  }

  private nodeId(lineage: string): string {
    let id = this.nodeIds.get(lineage);
    if (id === undefined) {
      id =
        this.state.ongoing.nodes[lineage]?.id ?? this.state.baseline.nodes[lineage]?.id ?? nodeIdOf(lineage);
      this.nodeIds.set(lineage, id);
    }
    return id;
  }

  apply(event: RuntimeEvent): void {
    const state = this.state;
    const at = event.timestamp;
    this.updateMeta(event);
    this.closeWindowBefore(at);
    const learning = state.baselineCapturedAt === null;
    const rec: Recorder = learning
      ? { profile: state.baseline, baseline: null, limits: this.limits }
      : { profile: state.ongoing, baseline: state.baseline, limits: this.limits };
    rec.profile.startedAt ??= at;
    rec.profile.eventCount++;
    rec.profile.lastEventAt = at;
    let lineage = '';
    if (event.type === 'process_exec') lineage = this.exec(rec, event);
    else if (event.type === 'file_open') lineage = this.fileOpen(rec, event);
    else if (event.type === 'network_connect') lineage = this.connect(rec, event);
    if (event.alert)
      this.signals.raise(alertRule(event.alert, event.process?.comm ?? 'unknown'), at, this.nodeId(lineage));
    const max = this.window.maxEvents;
    if (learning && max !== null && state.baseline.eventCount >= max) this.capture(at);
  }

  closeWindowBefore(at: string): void {
    const started = this.state.baseline.startedAt;
    if (this.state.baselineCapturedAt !== null || started === null) return;
    const end = Date.parse(started) + this.window.durationSeconds * 1000;
    if (Date.parse(at) >= end) this.capture(new Date(end).toISOString());
  }

  finish(): void {
    this.state.writtenPaths = [...this.written];
  }

  private capture(at: string): void {
    this.state.baselineCapturedAt = at;
    this.state.ongoing = emptyProfile(at);
  }

  private updateMeta(event: RuntimeEvent): void {
    const { container, kubernetes } = event;
    const state = this.state;
    // Falco's short id names the same container as the sensor's `containerd://<64 hex>`: keep the
    // full form, the one the inventory holds.
    const sameInstance = instanceKey(state.container.id) === instanceKey(container.id);
    state.container = {
      id: sameInstance && state.container.id.length > container.id.length ? state.container.id : container.id,
      name: container.name,
      // A Falco alert without image fields says `unknown`: it must not hide the known image.
      imageName:
        container.image_name === 'unknown' ? state.container.imageName || 'unknown' : container.image_name,
      imageDigest: container.image_digest ?? state.container.imageDigest,
      runtime: container.runtime ?? state.container.runtime,
    };
    state.kubernetes.cluster = kubernetes.cluster ?? state.kubernetes.cluster;
    state.kubernetes.pod = kubernetes.pod;
    state.kubernetes.node = kubernetes.node ?? state.kubernetes.node;
    if (event.timestamp > state.lastEventAt) state.lastEventAt = event.timestamp;
    if (event.timestamp < state.firstEventAt) state.firstEventAt = event.timestamp;
  }

  private exec(rec: Recorder, event: ProcessExecEvent): string {
    const p = event.process;
    const parent = this.processes.lineageOf(event.container.id, p.ppid);
    let lineage: string;
    if (parent === undefined) lineage = this.processes.adopt(p.comm) ?? p.comm;
    // Past the depth cap a process is folded into its parent (recursive shells cannot grow the tree).
    else
      lineage =
        lineageDepth(parent) >= this.limits.maxTreeDepth ? parent : `${parent}${LINEAGE_SEPARATOR}${p.comm}`;
    this.processes.track(event.container.id, p.pid, lineage);
    const node = ensureNode(rec, lineage, event.timestamp, p);
    if (node) {
      node.uid = p.uid;
      node.gid = p.gid;
    }
    const exe = p.exe ?? '';
    const coverage = recordProgram(rec, node, lineage, { comm: p.comm, exe, args: p.args }, event.timestamp);
    if (!coverage.covered) {
      const parentKey = parentLineage(lineage);
      const hits = execRules({
        comm: p.comm,
        exe,
        args: p.args,
        parentComm:
          parentKey === null
            ? null
            : (this.state.baseline.nodes[parentKey]?.comm ?? rec.profile.nodes[parentKey]?.comm ?? null),
        newNode: !this.state.baseline.nodes[lineage],
        knownProgram: coverage.knownProgram ?? false,
        wasWritten: exe !== '' && this.written.has(exe),
      });
      this.drift(rec, hits, event.timestamp, lineage);
    }
    return lineage;
  }

  private fileOpen(rec: Recorder, event: FileOpenEvent): string {
    const lineage = this.lineageOf(event);
    const node = ensureNode(rec, lineage, event.timestamp, this.idsOf(event, lineage));
    const write = event.file.flags.some((flag) => WRITE_FLAGS.has(flag));
    if (write) this.noteWritten(event.file.path);
    const coverage = recordFile(rec, node, lineage, event.file.path, write, event.timestamp);
    if (!coverage.covered) {
      const newNode = !this.state.baseline.nodes[lineage];
      const hits = fileRules({ path: event.file.path, write, comm: event.process.comm, newNode });
      this.drift(rec, hits, event.timestamp, lineage);
    }
    return lineage;
  }

  private connect(rec: Recorder, event: NetworkConnectEvent): string {
    const lineage = this.lineageOf(event);
    const node = ensureNode(rec, lineage, event.timestamp, this.idsOf(event, lineage));
    const c = event.connection;
    const trusted = this.trusted.match(c.address);
    const seen = {
      address: c.address,
      port: c.port,
      hostname: c.hostname ?? '',
      k8sName: c.k8s_name ?? '',
      k8sNamespace: c.k8s_namespace ?? '',
      trustedCIDR: trusted?.cidr ?? '',
      trustedName: trusted?.name ?? '',
    };
    const coverage = recordConnection(rec, node, lineage, seen, event.timestamp);
    if (!coverage.covered) {
      const internal = isInternalAddress(c.address);
      this.drift(
        rec,
        connectRules({ ...seen, trusted, internal, comm: event.process.comm }),
        event.timestamp,
        lineage,
      );
    }
    return lineage;
  }

  /** The lineage of the process behind a file or network event: its pid, else its name. */
  private lineageOf(event: FileOpenEvent | NetworkConnectEvent): string {
    const known = this.processes.lineageOf(event.container.id, event.process.pid);
    if (known !== undefined) return known;
    const lineage = this.processes.adopt(event.process.comm) ?? event.process.comm;
    this.processes.track(event.container.id, event.process.pid, lineage);
    return lineage;
  }

  private idsOf(event: FileOpenEvent | NetworkConnectEvent, lineage: string) {
    const base = this.state.baseline.nodes[lineage];
    return {
      uid: event.process.uid ?? base?.uid ?? UNKNOWN_ID,
      gid: event.process.gid ?? base?.gid ?? UNKNOWN_ID,
    };
  }

  private noteWritten(path: string): void {
    this.written.delete(path);
    this.written.add(path);
    if (this.written.size > this.limits.maxWrittenPaths)
      this.written.delete(this.written.values().next().value!);
  }

  private drift(rec: Recorder, hits: RuleHit[], at: string, lineage: string): void {
    rec.profile.driftEvents++;
    const processId = this.nodeId(lineage);
    for (const hit of hits) this.signals.raise(hit, at, processId);
  }
}
