/**
 * A small builder for deterministic event streams (the sample and the benchmark): seeded random
 * numbers and UUIDs, minute offsets from a start time, one method per event kind. Lines come out
 * sorted by time, as a sensor would send them.
 */
import type { ContainerMeta, KubernetesMeta, NetworkConnectEvent, RuntimeEvent } from '../event-schema.js';
import type { FalcoAlert } from '../falco.js';

export interface Workload {
  container: ContainerMeta;
  kubernetes: KubernetesMeta;
}

export type StreamLine = RuntimeEvent | FalcoAlert;

interface ExecProcess {
  pid: number;
  ppid: number;
  comm: string;
  exe: string;
  uid: number;
  gid: number;
}

export interface FalcoSpec {
  rule: string;
  priority: string;
  tags: string[];
  process: { pid: number; ppid: number; name: string; exepath: string; cmdline: string; uid: number };
}

export class ShopTimeline {
  private readonly start: number;
  private state: number;
  private nextPid = 100;
  private readonly lines: { at: string; line: StreamLine }[] = [];

  constructor(start: string, seed: number) {
    this.start = Date.parse(start);
    this.state = seed >>> 0;
  }

  /** mulberry32: small, fast and good enough for sample data */
  private random(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let x = this.state;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  }

  int(min: number, max: number): number {
    return min + Math.floor(this.random() * (max - min + 1));
  }

  uuid(): string {
    const hex = Array.from({ length: 32 }, () => this.int(0, 15).toString(16)).join('');
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20)}`;
  }

  pid(): number {
    return this.nextPid++;
  }

  time(minutes: number, seconds = 0): string {
    return new Date(this.start + minutes * 60_000 + Math.round(seconds * 1000)).toISOString();
  }

  private push(at: string, line: StreamLine): void {
    this.lines.push({ at, line });
  }

  private envelope(w: Workload, at: string) {
    return { timestamp: at, container: w.container, kubernetes: w.kubernetes };
  }

  exec(w: Workload, at: string, process: ExecProcess, args: string[]): void {
    this.push(at, { type: 'process_exec', ...this.envelope(w, at), process: { ...process, args } });
  }

  open(w: Workload, at: string, process: { pid: number; comm: string }, path: string, flags: string[]): void {
    this.push(at, { type: 'file_open', ...this.envelope(w, at), process, file: { path, flags } });
  }

  connect(
    w: Workload,
    at: string,
    process: { pid: number; comm: string },
    connection: NetworkConnectEvent['connection'],
  ) {
    this.push(at, {
      type: 'network_connect',
      ...this.envelope(w, at),
      process,
      connection: { protocol: 'tcp', ...connection },
    });
  }

  http(
    w: Workload,
    at: string,
    request: { method: string; path: string; status: number },
    sourceAddress: string,
    destination: Extract<RuntimeEvent, { type: 'http_request' }>['http']['destination'],
  ): void {
    this.push(at, {
      type: 'http_request',
      ...this.envelope(w, at),
      http: {
        ...request,
        scheme: destination.port === 443 ? 'https' : 'http',
        host: destination.hostname ?? destination.address,
        protocol: 'HTTP/1.1',
        source: { address: sourceAddress, port: this.int(32768, 60999) },
        destination,
        headers: { 'user-agent': 'shop-web/2.3.1', 'content-type': 'application/json' },
      },
    });
  }

  /** A Falco alert as Falco's json_output prints it. */
  falco(w: Workload, at: string, spec: FalcoSpec): void {
    const [repository, tag] = w.container.image_name.split(':');
    const fullId = w.container.id.replace(/^[a-z]+:\/\//, '');
    this.push(at, {
      hostname: w.kubernetes.node,
      output: `${at}: ${spec.priority} ${spec.rule} (proc.cmdline=${spec.process.cmdline} container.id=${fullId.slice(0, 12)})`,
      priority: spec.priority,
      rule: spec.rule,
      source: 'syscall',
      tags: spec.tags,
      time: at,
      output_fields: {
        'container.full_id': fullId,
        'container.id': fullId.slice(0, 12),
        'container.image.repository': repository,
        'container.image.tag': tag,
        'container.name': w.container.name,
        'evt.type': 'execve',
        'k8s.ns.name': w.kubernetes.namespace,
        'k8s.pod.name': w.kubernetes.pod,
        'proc.cmdline': spec.process.cmdline,
        'proc.exepath': spec.process.exepath,
        'proc.name': spec.process.name,
        'proc.pid': spec.process.pid,
        'proc.ppid': spec.process.ppid,
        'user.uid': spec.process.uid,
      },
    });
  }

  /** Every line, ordered by time (stable for equal times). */
  events(): StreamLine[] {
    return [...this.lines].sort((a, b) => a.at.localeCompare(b.at)).map((entry) => entry.line);
  }
}
