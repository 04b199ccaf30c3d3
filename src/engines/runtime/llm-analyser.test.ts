import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { applyEvents } from './engine.js';
import { createLlmAnalyser, llmAnalyserConfigFromEnv } from './llm-analyser.js';
import { analyseWithRules } from './rule-analyser.js';
import { at, connect, exec, KEY, open } from './testing.js';

type Handler = (request: IncomingMessage, body: string, response: ServerResponse) => void;

let server: Server;
let baseUrl: string;
let handler: Handler = () => {};

before(async () => {
  server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => handler(request, Buffer.concat(chunks).toString('utf8'), response));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});

after(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const state = applyEvents(
  null,
  KEY,
  [
    exec(at(0), 1, 0, 'node', ['server.js']),
    exec(at(100), 40, 1, 'sh', ['-c', 'cat /var/run/secrets/kubernetes.io/serviceaccount/token'], '/bin/sh'),
    open(at(101), 40, 'sh', '/var/run/secrets/kubernetes.io/serviceaccount/token'),
    connect(at(102), 40, 'sh', '203.0.113.45', 443),
  ],
  { window: { durationSeconds: 60 } },
);
const shellId = state.ongoing.nodes['node > sh']!.id;
const ruleRecord = analyseWithRules(state, {
  accountId: 'a',
  clusterId: 'c',
  insightId: 'i',
  analysisId: 'llm-1',
  now: at(200),
});

const chat = (content: string) =>
  JSON.stringify({ id: 'x', choices: [{ index: 0, message: { role: 'assistant', content } }] });
const answer = {
  description: 'An attacker used a shell to steal the service-account token and send it out.',
  remediation: 'Terminate the pod and rotate the token.',
  severity: 'critical',
  malicious: true,
  category: 'credential_access',
  mitreAttackTechniques: ['T1528', 'T1059.004', 'T9999', 'not-an-id'],
  maliciousProcessIDs: [shellId, 'invented-id'],
};

function respond(status: number, body: string): Handler {
  return (_request, _body, response) => {
    response.writeHead(status, { 'content-type': 'application/json' });
    response.end(body);
  };
}

describe('LLM analyser against a local OpenAI-compatible server', () => {
  test('sends the prompt and fills the llmAnalysis record from a valid answer', async () => {
    let seen: { url?: string; auth?: string; body?: Record<string, unknown> } = {};
    handler = (request, body, response) => {
      seen = { url: request.url, auth: request.headers.authorization, body: JSON.parse(body) };
      respond(200, chat(JSON.stringify(answer)))(request, body, response);
    };
    const llm = createLlmAnalyser({ baseUrl, model: 'gpt-test', apiKey: 'sk-test-key' });
    const record = await llm.analyse(state, ruleRecord);

    assert.equal(seen.url, '/v1/chat/completions');
    assert.equal(seen.auth, 'Bearer sk-test-key');
    assert.equal(seen.body?.model, 'gpt-test');
    const messages = seen.body?.messages as { role: string; content: string }[];
    assert.deepEqual(
      messages.map((m) => m.role),
      ['system', 'user'],
    );
    assert.match(messages[1]!.content, /service_account_token/);
    assert.match(messages[1]!.content, new RegExp(`process ${shellId}: node > sh`));

    assert.equal(record.prompt, `${messages[0]!.content}\n\n${messages[1]!.content}`);
    assert.equal(record.promptDigest, createHash('sha256').update(record.prompt).digest('hex'));
    assert.deepEqual(
      [record.llmProvider, record.model, record.status, record.totalRequests, record.id],
      [new URL(baseUrl).host, 'gpt-test', 'completed', 1, 'llm-1'],
    );
    assert.equal(record.description, answer.description);
    assert.deepEqual(
      [record.severity, record.action, record.category],
      ['critical', 'terminate_pod', 'credential_access'],
    );
    assert.deepEqual(
      record.mitreAttackTechniques.map((t) => `${t.id} ${t.name}`),
      ['T1528 Steal Application Access Token', 'T1059.004 Command and Scripting Interpreter: Unix Shell'],
      'unknown and malformed technique ids are dropped',
    );
    assert.deepEqual(
      record.mitreAttackTactics.map((t) => t.id),
      ['TA0002', 'TA0006'],
    );
    assert.deepEqual(record.maliciousProcessIDs, [shellId], 'process ids not in the fingerprint are dropped');
  });

  test('accepts an answer wrapped in a Markdown fence; no API key sends no Authorization header', async () => {
    let auth: string | undefined = 'unset';
    handler = (request, body, response) => {
      auth = request.headers.authorization;
      respond(
        200,
        chat(`\`\`\`json\n${JSON.stringify({ ...answer, malicious: false, severity: 'medium' })}\n\`\`\``),
      )(request, body, response);
    };
    const record = await createLlmAnalyser({ baseUrl: `${baseUrl}/`, model: 'm', provider: 'local' }).analyse(
      state,
      ruleRecord,
    );
    assert.equal(auth, undefined);
    assert.deepEqual(
      [record.status, record.llmProvider, record.action, record.maliciousProcessIDs],
      ['completed', 'local', 'review', []],
    );
  });

  const failures: [string, Handler, RegExp][] = [
    ['HTTP error', respond(500, '{"error":"boom"}'), /HTTP 500/],
    ['a body that is not JSON', respond(200, '<html>proxy error</html>'), /did not answer JSON/],
    ['no message content', respond(200, JSON.stringify({ choices: [] })), /no message content/],
    ['a message that is not JSON', respond(200, chat('I think this is bad.')), /not a JSON object/],
    [
      'a JSON message without the asked fields',
      respond(200, chat('{"description":"x"}')),
      /does not have the asked fields/,
    ],
    [
      'a severity outside the vocabulary',
      respond(200, chat(JSON.stringify({ ...answer, severity: 'urgent' }))),
      /asked fields/,
    ],
    ['an answer over the size limit', respond(200, chat('x'.repeat(5000))), /larger than 4096 bytes/],
  ];
  for (const [name, failing, reason] of failures) {
    test(`falls back to the rule record on ${name}`, async () => {
      handler = failing;
      const llm = createLlmAnalyser({ baseUrl, model: 'm', maxResponseBytes: 4096 });
      const record = await llm.analyse(state, ruleRecord);
      assert.equal(record.status, 'failed');
      assert.equal(record.partial, true);
      assert.match(record.description, reason);
      assert.ok(record.description.startsWith(ruleRecord.description));
      assert.deepEqual(
        [record.severity, record.mitreAttackTechniques],
        [ruleRecord.severity, ruleRecord.mitreAttackTechniques],
      );
      assert.equal(record.promptDigest.length, 64, 'the question asked is still recorded');
    });
  }

  test('gives up after the timeout without throwing', async () => {
    handler = () => {}; // never answers
    const started = Date.now();
    const record = await createLlmAnalyser({ baseUrl, model: 'm', timeoutMs: 200 }).analyse(
      state,
      ruleRecord,
    );
    assert.ok(Date.now() - started < 2000);
    assert.equal(record.status, 'failed');
    assert.match(record.description, /no answer within 200 ms/);
  });

  test('an unreachable provider is a failure, not an exception', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const record = await createLlmAnalyser({ baseUrl: `http://127.0.0.1:${port}/v1`, model: 'm' }).analyse(
      state,
      ruleRecord,
    );
    assert.equal(record.status, 'failed');
    assert.match(record.description, /could not be reached/);
  });
});

describe('LLM analyser configuration', () => {
  test('off unless base URL and model are set', () => {
    assert.equal(llmAnalyserConfigFromEnv({}), null);
    assert.equal(llmAnalyserConfigFromEnv({ POSTURE_LLM_BASE_URL: 'http://127.0.0.1:11434/v1' }), null);
    assert.deepEqual(
      llmAnalyserConfigFromEnv({
        POSTURE_LLM_BASE_URL: 'https://api.example.com/v1',
        POSTURE_LLM_MODEL: 'gpt-4o-mini',
        POSTURE_LLM_API_KEY: 'sk-x',
        POSTURE_LLM_TIMEOUT_MS: '5000',
      }),
      { baseUrl: 'https://api.example.com/v1', model: 'gpt-4o-mini', apiKey: 'sk-x', timeoutMs: 5000 },
    );
  });

  test('a bad value stops with a message naming the variable', () => {
    assert.throws(
      () => llmAnalyserConfigFromEnv({ POSTURE_LLM_BASE_URL: 'not a url', POSTURE_LLM_MODEL: 'm' }),
      /POSTURE_LLM_BASE_URL/,
    );
    assert.throws(
      () => llmAnalyserConfigFromEnv({ POSTURE_LLM_BASE_URL: 'ftp://x', POSTURE_LLM_MODEL: 'm' }),
      /http or https/,
    );
    assert.throws(
      () =>
        llmAnalyserConfigFromEnv({
          POSTURE_LLM_BASE_URL: 'http://x',
          POSTURE_LLM_MODEL: 'm',
          POSTURE_LLM_TIMEOUT_MS: 'fast',
        }),
      /POSTURE_LLM_TIMEOUT_MS/,
    );
  });
});
