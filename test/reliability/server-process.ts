/**
 * The real server as a child process (src/server.ts, bundled: server-bundle.ts), for the fault suite:
 * started on a free loopback port, ready when `/healthz` answers, killed with SIGKILL. Every
 * process started here is remembered so `killAllServers()` (in each file's `after`) leaves no
 * orphan, even when a test fails half-way.
 *
 * @example
 *   const server = await startServer({ DATABASE_URL: url });
 *   await server.kill9();
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { serverBundle } from '../support/server-bundle.js';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
/** A fixed pepper, so keys made by the in-process CLI authenticate against every spawned server. */
export const FAULTS_SECRET = 'faults-secret-faults-secret-faults-0000';

export interface ServerProcess {
  pid: number;
  url: string;
  /** from spawn to the first answer of /healthz */
  bootMs: number;
  /** true once the process has exited, for whatever reason */
  exited(): boolean;
  exitCode(): number | null;
  /** stdout and stderr so far (warn level and above, plus crashes) */
  output(): string;
  /** SIGKILL, resolved when the process is gone */
  kill9(): Promise<void>;
  /** SIGTERM (graceful shutdown), resolved with the exit code */
  stop(): Promise<number | null>;
}

const running = new Set<ChildProcess>();

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject()));
    });
  });
}

function exitOf(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

async function waitUntilReady(url: string, child: ChildProcess, output: () => string, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(
        `server exited (${child.exitCode ?? child.signalCode}) before it was ready:\n${output()}`,
      );
    }
    try {
      const res = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(2000) });
      if (res.status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`server not ready after ${timeoutMs} ms:\n${output()}`);
}

/**
 * Starts a server with this store (DATABASE_URL or DATA_DIR) and waits until it answers.
 * The environment is the test's own minus what would change the server's behaviour.
 */
export async function startServer(
  store: Record<string, string>,
  readyTimeoutMs = 150_000,
): Promise<ServerProcess> {
  const entry = await serverBundle(); // before the clock: the first call may build it
  const spawnedAt = Date.now();
  const port = await freePort();
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    // NODE_TEST_CONTEXT would make the child report to the test runner; DATABASE_URL is the store's.
    if (value !== undefined && key !== 'NODE_TEST_CONTEXT' && key !== 'DATABASE_URL') env[key] = value;
  }
  Object.assign(env, {
    PORT: String(port),
    HOST: '127.0.0.1',
    DEMO: 'false',
    LOG_LEVEL: 'warn',
    POSTURE_SECRET: FAULTS_SECRET,
    // The load generators send far more than a human: the per-token limit is not under test here.
    RATE_LIMIT_PER_MINUTE: '0',
    ...store,
  });
  const child = spawn(process.execPath, [entry], {
    cwd: REPO,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  child.once('exit', () => running.delete(child));
  let output = '';
  child.stdout?.on('data', (chunk) => (output += chunk));
  child.stderr?.on('data', (chunk) => (output += chunk));
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitUntilReady(url, child, () => output, readyTimeoutMs);
  } catch (error) {
    child.kill('SIGKILL');
    await exitOf(child);
    throw error;
  }
  return {
    pid: child.pid ?? -1,
    url,
    bootMs: Date.now() - spawnedAt,
    exited: () => child.exitCode !== null || child.signalCode !== null,
    exitCode: () => child.exitCode,
    output: () => output,
    async kill9() {
      child.kill('SIGKILL');
      await exitOf(child);
    },
    async stop() {
      child.kill('SIGTERM');
      return exitOf(child);
    },
  };
}

/** SIGKILLs every server this process started that is still running. For `after` hooks. */
export async function killAllServers(): Promise<void> {
  const children = [...running];
  for (const child of children) child.kill('SIGKILL');
  await Promise.all(children.map(exitOf));
}
