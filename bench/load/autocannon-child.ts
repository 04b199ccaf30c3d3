/**
 * One bounded autocannon run against a URL from a child process, so the load generator's CPU is
 * never counted as the measuring process's. For the before/after tools (rows-rounds.ts,
 * paired-rounds.ts); the suite's own load runs in its worker (worker.ts).
 *
 * @example
 *   const { requests, p99 } = await autocannon(`${baseUrl}/accounts/${id}`, authorization, 8);
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';

/** Requests served in `seconds` at `connections` and their p99 latency (ms); rejects on a non-2xx. */
export function autocannon(
  url: string,
  authorization: string,
  seconds: number,
  connections = 16,
): Promise<{ requests: number; p99: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [
        createRequire(import.meta.url).resolve('autocannon'),
        '-c',
        String(connections),
        '-d',
        String(seconds),
        '-H',
        `authorization=${authorization}`,
        '--json',
        url,
      ],
      { stdio: ['ignore', 'pipe', 'ignore'] },
    );
    let out = '';
    child.stdout!.on('data', (chunk) => (out += chunk));
    child.on('exit', () => {
      try {
        const json = JSON.parse(out) as {
          requests: { total: number };
          latency: { p99: number };
          non2xx: number;
        };
        if (json.non2xx > 0) reject(new Error(`${url}: ${json.non2xx} non-2xx`));
        resolve({ requests: json.requests.total, p99: json.latency.p99 });
      } catch (error) {
        reject(error);
      }
    });
  });
}
