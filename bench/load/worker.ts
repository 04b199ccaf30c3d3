/**
 * The load generator: a child process of its own (never the server's, never the orchestrator's
 * event loop), driven over IPC. Each message is one autocannon run; the answer is its summary.
 */
import autocannon from 'autocannon';
import type { LoadRequest, LoadSummary } from './protocol.js';

process.on('message', async (request: LoadRequest) => {
  try {
    const result = await autocannon({
      url: request.url,
      method: request.method,
      headers: request.headers,
      ...(request.body !== undefined ? { body: request.body } : {}),
      connections: request.connections,
      duration: request.seconds,
      timeout: 30,
    });
    const ok = result['2xx'];
    const summary: LoadSummary = {
      requests: result.requests.total,
      ok,
      non2xx: result.non2xx,
      errors: result.errors,
      timeouts: result.timeouts,
      seconds: result.duration,
      rps: Math.round((ok / Math.max(result.duration, 0.001)) * 10) / 10,
      p50_ms: result.latency.p50,
      p90_ms: result.latency.p90,
      p99_ms: result.latency.p99,
      max_ms: result.latency.max,
      mb_per_s: Math.round((result.throughput.average / 1e6) * 100) / 100,
    };
    process.send?.({ ok: true, summary });
  } catch (error) {
    process.send?.({ ok: false, error: String(error) });
  }
});
