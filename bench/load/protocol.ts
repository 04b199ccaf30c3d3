/**
 * Messages between the orchestrator and its helper processes (load generator, bare HTTP server),
 * and `Helper`, which forks one such process (TypeScript through tsx) and asks it one thing at a
 * time.
 */
import { type ChildProcess, fork } from 'node:child_process';

export interface LoadRequest {
  url: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
  connections: number;
  seconds: number;
}

export interface LoadSummary {
  requests: number;
  ok: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  /** how long the load ran (autocannon's own measure) */
  seconds: number;
  /** successful requests per second */
  rps: number;
  p50_ms: number;
  p90_ms: number;
  p99_ms: number;
  max_ms: number;
  mb_per_s: number;
}

/** What the bare server answers: the same bytes, every time. */
export interface ServeRequest {
  body: string;
  contentType: string;
}

type Answer<T> = { ok: true } & T;

export class Helper {
  private readonly child: ChildProcess;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(script: string) {
    this.child = fork(new URL(script, import.meta.url), { execArgv: ['--import', 'tsx'], stdio: 'inherit' });
  }

  get pid(): number {
    return this.child.pid!;
  }

  /** Sends one message and waits for the reply (requests are serialized). */
  ask<T>(message: unknown): Promise<T> {
    const next = this.queue.then(
      () =>
        new Promise<T>((resolve, reject) => {
          const onExit = (code: number | null) => reject(new Error(`helper exited with ${code}`));
          this.child.once('exit', onExit);
          this.child.once('message', (reply: Answer<T> | { ok: false; error: string }) => {
            this.child.off('exit', onExit);
            if (reply.ok) resolve(reply as T);
            else reject(new Error(reply.error));
          });
          this.child.send(message as object);
        }),
    );
    this.queue = next.catch(() => undefined);
    return next;
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null) return;
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.kill('SIGTERM');
    await exited;
  }
}
