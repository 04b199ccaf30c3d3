/**
 * A steady read load for the outage test: a few clients cycle through authenticated GETs and
 * `/readyz`, each with a deadline, and tally the answers per phase of the test. During a database
 * outage the only acceptable answers are a 2xx or 503 `unavailable`; anything else (another status,
 * a cut connection, no answer before the deadline) is a violation.
 */
import type { Tenant } from './client.js';

export interface ReadLoad {
  /** names the answers that follow, e.g. 'outage' */
  setPhase(phase: string): void;
  /** phase -> outcome ('2xx', '503 unavailable', ...) -> count */
  outcomes: Map<string, Map<string, number>>;
  violations: string[];
  stop(): Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function classify(res: Response): Promise<string> {
  const text = await res.text();
  if (res.status >= 200 && res.status < 300) return '2xx';
  let code = '?';
  try {
    code = JSON.parse(text).code;
  } catch {
    // not an ApiError body: the status alone says enough
  }
  return `${res.status} ${code}`;
}

export function startReadLoad(
  url: string,
  tenant: Tenant,
  options: { clients: number; timeoutMs: number; pauseMs: number },
): ReadLoad {
  const paths = [
    `/accounts/${tenant.accountId}/resources?cluster_id=${tenant.clusterId}&page_size=20`,
    `/accounts/${tenant.accountId}/clusters`,
    `/accounts/${tenant.accountId}/inventory_containers?limit=5`,
    `/accounts/${tenant.accountId}`,
    '/readyz',
  ];
  const outcomes = new Map<string, Map<string, number>>();
  const violations: string[] = [];
  let phase = 'start';
  let stopped = false;

  const tally = (outcome: string, path: string) => {
    const counts = outcomes.get(phase) ?? new Map<string, number>();
    counts.set(outcome, (counts.get(outcome) ?? 0) + 1);
    outcomes.set(phase, counts);
    if (outcome !== '2xx' && outcome !== '503 unavailable')
      violations.push(`${phase}: GET ${path}: ${outcome}`);
  };

  async function client(offset: number) {
    for (let n = offset; !stopped; n++) {
      const path = paths[n % paths.length] as string;
      try {
        const res = await fetch(`${url}${path}`, {
          headers: { authorization: `Bearer ${tenant.token}` },
          signal: AbortSignal.timeout(options.timeoutMs),
        });
        tally(await classify(res), path);
      } catch (error) {
        const name =
          (error as Error).name === 'TimeoutError' ? `no answer within ${options.timeoutMs} ms` : '';
        tally(name || `connection error ${(error as { cause?: { code?: string } }).cause?.code ?? ''}`, path);
      }
      await sleep(options.pauseMs);
    }
  }

  const clients = Array.from({ length: options.clients }, (_, index) => client(index));
  return {
    setPhase(next) {
      phase = next;
    },
    outcomes,
    violations,
    async stop() {
      stopped = true;
      await Promise.all(clients);
    },
  };
}

/** `{phase: {outcome: count}}`, for the test's diagnostics and docs/security.md. */
export function describeOutcomes(outcomes: ReadLoad['outcomes']): string {
  return [...outcomes]
    .map(
      ([phase, counts]) =>
        `${phase}: ${[...counts].map(([outcome, count]) => `${outcome} ${count}`).join(', ')}`,
    )
    .join('; ');
}
