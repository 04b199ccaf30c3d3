/**
 * The soak's readers (a child process): autocannon at a fixed number of connections, every
 * connection cycling through the list endpoints' common queries (the benchmark's cases), each
 * answer's status and latency recorded as it arrives so the orchestrator gets them per window.
 */
import autocannon from 'autocannon';
import { serveSoakChild } from './soak-child.js';

export interface ReadsConfig {
  baseUrl: string;
  authorization: string;
  paths: string[];
  connections: number;
  /** an upper bound only: the orchestrator stops the readers at its deadline */
  seconds: number;
}

serveSoakChild<ReadsConfig>(async (config, recorder) => {
  const run = autocannon({
    url: config.baseUrl,
    headers: { authorization: config.authorization },
    requests: config.paths.map((path) => ({ method: 'GET', path })),
    connections: config.connections,
    duration: config.seconds,
    timeout: 30,
  });
  run.on('response', (_client, status, _bytes, ms) => recorder.answered(status, ms));
  run.on('reqError', (error) => recorder.failed(error.message || 'request error'));
  const finished = run.then(
    () => undefined,
    (error: unknown) => recorder.failed(`load generator: ${String(error)}`),
  );
  return {
    async stop() {
      run.stop();
      await finished;
    },
  };
});
