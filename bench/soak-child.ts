/**
 * The soak's load comes from child processes of their own (never the server's process, never the
 * orchestrator's event loop, which samples). This module is both sides of their conversation:
 * `SoakChild` forks one and, every window, asks it for what it saw since the last ask;
 * `serveSoakChild` is the child's side, and `Recorder` is what the child fills.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { appendTo, emptyBatch, type WindowBatch } from './soak-stats.js';

type ToChild = { type: 'start'; config: unknown } | { type: 'flush' } | { type: 'stop' };
type FromChild = { type: 'batch'; batch: WindowBatch } | { type: 'failed'; error: string };

/** Latencies and outcomes of the requests since the last `take()`. */
export class Recorder {
  private batch = emptyBatch();

  answered(status: number, latencyMs: number, kind?: string): void {
    const ms = Math.round(latencyMs * 10) / 10;
    this.batch.latencies_ms.push(ms);
    this.batch.statuses[status] = (this.batch.statuses[status] ?? 0) + 1;
    if (kind) appendTo(this.batch.by_kind, kind, ms);
  }

  /** A request that got no HTTP answer (socket error, timeout). */
  failed(reason: string): void {
    this.batch.failures[reason] = (this.batch.failures[reason] ?? 0) + 1;
  }

  take(): WindowBatch {
    const batch = this.batch;
    this.batch = emptyBatch();
    return batch;
  }
}

export class SoakChild {
  private readonly child: ChildProcess;
  private waiting: ((batch: WindowBatch) => void) | undefined;
  private failure: string | undefined;

  constructor(script: string, config: unknown) {
    this.child = fork(new URL(script, import.meta.url), { execArgv: ['--import', 'tsx'], stdio: 'inherit' });
    this.child.on('message', (message: FromChild) => {
      if (message.type === 'failed') this.failure = message.error;
      else this.waiting?.(message.batch);
    });
    this.send({ type: 'start', config });
  }

  /** Set when the child reported that it cannot go on (the run then stops). */
  get failed(): string | undefined {
    if (this.failure) return this.failure;
    if (this.child.exitCode !== null) return `exited with ${this.child.exitCode}`;
    return undefined;
  }

  /** What the child saw since the last call. */
  flush(): Promise<WindowBatch> {
    return this.ask({ type: 'flush' });
  }

  /** Stops the child's load and returns what it saw since the last flush; the child then exits. */
  async stop(): Promise<WindowBatch> {
    const last = await this.ask({ type: 'stop' });
    await this.exited(10_000);
    return last;
  }

  /** Ends the child at once (cleanup after a failure). */
  async kill(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
    await this.exited(5_000);
  }

  private ask(message: ToChild): Promise<WindowBatch> {
    if (this.child.exitCode !== null || !this.child.connected) return Promise.resolve(emptyBatch());
    return new Promise((resolve) => {
      // A child that does not answer within 30 s is reported as having answered nothing.
      const timer = setTimeout(() => resolve(emptyBatch()), 30_000);
      this.waiting = (batch) => {
        clearTimeout(timer);
        this.waiting = undefined;
        resolve(batch);
      };
      this.send(message);
    });
  }

  private send(message: ToChild): void {
    if (this.child.connected) this.child.send(message);
  }

  private async exited(ms: number): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exit = new Promise((resolve) => this.child.once('exit', resolve));
    const late = await Promise.race([exit.then(() => false), sleep(ms).then(() => true)]);
    if (late) {
      this.child.kill('SIGKILL');
      await exit;
    }
  }
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The child's side: `start` receives the config and begins the load, returning how to stop it.
 * The child leaves when its parent goes away (the IPC channel closes), so a killed orchestrator
 * leaves no load generator behind.
 */
export function serveSoakChild<Config>(
  start: (config: Config, recorder: Recorder) => Promise<{ stop(): Promise<void> }>,
): void {
  const recorder = new Recorder();
  let running: Promise<{ stop(): Promise<void> }> | undefined;
  const reply = (message: FromChild) => process.send?.(message);
  process.on('disconnect', () => process.exit(0));
  process.on('message', async (message: ToChild) => {
    if (message.type === 'start') {
      running = start(message.config as Config, recorder);
      running.catch((error) => reply({ type: 'failed', error: String(error) }));
    } else if (message.type === 'flush') {
      reply({ type: 'batch', batch: recorder.take() });
    } else {
      try {
        await (await running)?.stop();
      } catch {
        // already reported as failed
      }
      reply({ type: 'batch', batch: recorder.take() });
      process.disconnect?.();
      process.exit(0);
    }
  });
}
