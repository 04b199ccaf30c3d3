/**
 * The LLM analyser wired to ingestion, against a local OpenAI-compatible fake: it runs after the
 * push has committed (a provider that has not answered yet does not hold the push), fills
 * llmAnalysis, is asked again only when the analysis changes, and a failure never fails a push.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { createCluster } from '../../../test/ingest/sample.js';
import {
  exec,
  fileOpen,
  getJson,
  pushOk,
  putSettings,
  type RuntimeTarget,
  WEB,
} from '../../../test/runtime/support.js';
import { createTenant, startTestApp, type TestApp } from '../../../test/support/harness.js';

let server: Server;
let t: TestApp;
/** Requests the fake provider received, each answered when its `answer` is called. */
let received: { body: Record<string, unknown>; answer: (status: number, content?: unknown) => void }[] = [];
let onRequest: () => void = () => {};

function reply(response: ServerResponse, status: number, content: unknown) {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(
    JSON.stringify({
      choices: [{ index: 0, message: { role: 'assistant', content: JSON.stringify(content) } }],
    }),
  );
}

before(async () => {
  server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({
        body: JSON.parse(Buffer.concat(chunks).toString('utf8')),
        answer: (status, content) => reply(response, status, content),
      });
      onRequest();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  t = await startTestApp({
    POSTURE_LLM_BASE_URL: `http://127.0.0.1:${port}/v1`,
    POSTURE_LLM_MODEL: 'fake-model',
    POSTURE_LLM_PROVIDER: 'fake-provider',
  });
});
after(async () => {
  await t.close();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const ANSWER = {
  description: 'A shell read the shadow file: likely hands-on-keyboard activity.',
  remediation: 'Terminate the pod.',
  severity: 'high',
  malicious: true,
  mitreAttackTechniques: ['T1003.008'],
};

const nextRequest = () => new Promise<void>((resolve) => (onRequest = resolve));
const idle = () => t.app.services.runtimeLlmQueue!.idle();

async function target(): Promise<RuntimeTarget> {
  const tenant = await createTenant(t);
  const clusterId = (await createCluster(t, tenant.adminToken, tenant.accountId, 'llm')).id;
  await putSettings(
    t,
    { token: tenant.adminToken, accountId: tenant.accountId },
    { learning_window_seconds: 60 },
  );
  return { token: tenant.adminToken, accountId: tenant.accountId, clusterId };
}

const insight = async (x: RuntimeTarget) =>
  (await getJson(t, x.token, `/accounts/${x.accountId}/container_runtime_insights`)).entries[0];

describe('the LLM analyser after a push', () => {
  test('the push answers before the provider does; the answer then fills llmAnalysis', async () => {
    received = [];
    const x = await target();
    const asked = nextRequest();
    await pushOk(t, x, [
      exec(WEB, 0, { pid: 1, ppid: 0, comm: 'server', exe: '/app/server' }),
      exec(WEB, 100, { pid: 40, ppid: 1, comm: 'cat', exe: '/bin/cat', args: ['/etc/shadow'] }),
      fileOpen(WEB, 101, 40, 'cat', '/etc/shadow'),
    ]);
    await asked;
    assert.equal(received.length, 1);
    assert.equal((await insight(x)).llmAnalysis, null, 'stored only once the provider answers');

    received[0]!.answer(200, ANSWER);
    await idle();
    const { llmAnalysis, analysis } = await insight(x);
    assert.equal(llmAnalysis.status, 'completed');
    assert.equal(llmAnalysis.llmProvider, 'fake-provider');
    assert.equal(llmAnalysis.model, 'fake-model');
    assert.equal(llmAnalysis.description, ANSWER.description);
    assert.deepEqual(
      llmAnalysis.mitreAttackTechniques.map((tech: { id: string }) => tech.id),
      ['T1003.008'],
    );
    assert.equal(llmAnalysis.promptDigest, createHash('sha256').update(llmAnalysis.prompt).digest('hex'));
    assert.equal(llmAnalysis.stale, false);
    assert.equal(analysis[0].llmProvider, '', 'the rule-based record stays as it was');
  });

  test('asked again only when the analysis changes; meanwhile the old one is marked stale', async () => {
    received = [];
    const x = await target();
    const first = nextRequest();
    await pushOk(t, x, [
      exec(WEB, 0, { pid: 1, ppid: 0, comm: 'server', exe: '/app/server' }),
      fileOpen(WEB, 100, 1, 'server', '/etc/shadow'),
    ]);
    await first;
    received[0]!.answer(200, ANSWER);
    await idle();

    await pushOk(t, x, [fileOpen(WEB, 200, 1, 'server', '/etc/shadow')]);
    await idle();
    assert.equal(received.length, 1, 'the same signal again: no new question');
    assert.equal((await insight(x)).llmAnalysis.stale, false);

    const second = nextRequest();
    await pushOk(t, x, [exec(WEB, 300, { pid: 41, ppid: 1, comm: 'curl', exe: '/usr/bin/curl' })]);
    await second;
    assert.equal((await insight(x)).llmAnalysis.stale, true, 'the stored answer is about fewer signals');
    received[1]!.answer(200, { ...ANSWER, description: 'Now with curl.' });
    await idle();
    const latest = (await insight(x)).llmAnalysis;
    assert.deepEqual([latest.description, latest.stale], ['Now with curl.', false]);
  });

  test('a provider error never fails the push: the record says failed', async () => {
    received = [];
    const x = await target();
    const asked = nextRequest();
    await pushOk(t, x, [
      exec(WEB, 0, { pid: 1, ppid: 0, comm: 'server', exe: '/app/server' }),
      exec(WEB, 100, { pid: 40, ppid: 1, comm: 'nmap', exe: '/usr/bin/nmap' }),
    ]);
    await asked;
    received[0]!.answer(503);
    await idle();
    const { llmAnalysis } = await insight(x);
    assert.equal(llmAnalysis.status, 'failed');
    assert.equal(llmAnalysis.partial, true);
    assert.match(llmAnalysis.description, /LLM analysis failed: the provider answered HTTP 503/);
  });
});
