/**
 * The optional LLM analyser: asks an OpenAI-compatible chat-completions API (base URL, model, API
 * key; off unless configured) to explain an insight, and fills the `llmAnalysis` record with
 * its answer plus `llmProvider`, `model`, `prompt` and `promptDigest` (sha256 of the prompt).
 * It never throws: a timeout, an HTTP error or an answer that is not the JSON asked for gives the
 * rule-based record marked `status: failed`, so ingestion is never held up by the provider.
 * Technique ids are checked against the ATT&CK catalog and process ids against the fingerprint:
 * the model cannot invent either.
 *
 * @example
 *   const config = llmAnalyserConfigFromEnv(process.env); // null: not configured
 *   const llm = config && createLlmAnalyser(config);
 *   const record = llm ? await llm.analyse(state, analyseWithRules(state, ctx)) : null;
 */
import { createHash } from 'node:crypto';
import { type Static, Type } from 'typebox';
import Compile from 'typebox/compile';
import { buildAnalysisPrompt, LLM_SYSTEM_PROMPT } from './llm-prompt.js';
import { isTechniqueId, tacticRefs, techniqueLink, techniqueRef } from './mitre.js';
import type { AnalysisRecord } from './rule-analyser.js';
import { SEVERITIES, severityRank } from './severity.js';
import type { WorkloadContainerState } from './state.js';

export interface LlmAnalyserConfig {
  /** e.g. https://api.openai.com/v1 or http://127.0.0.1:11434/v1; `/chat/completions` is appended */
  baseUrl: string;
  model: string;
  apiKey?: string;
  /** stored as llmProvider; defaults to the base URL's host */
  provider?: string;
  timeoutMs?: number;
  maxResponseBytes?: number;
}

export interface LlmAnalyser {
  readonly provider: string;
  readonly model: string;
  analyse(state: WorkloadContainerState, ruleRecord: AnalysisRecord): Promise<AnalysisRecord>;
}

/** Reads POSTURE_LLM_* variables; null unless both base URL and model are set. Throws on a bad value. */
export function llmAnalyserConfigFromEnv(env: NodeJS.ProcessEnv): LlmAnalyserConfig | null {
  const baseUrl = env.POSTURE_LLM_BASE_URL?.trim();
  const model = env.POSTURE_LLM_MODEL?.trim();
  if (!baseUrl || !model) return null;
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new Error(`POSTURE_LLM_BASE_URL: not a URL (got ${JSON.stringify(baseUrl)})`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new Error('POSTURE_LLM_BASE_URL: must be http or https');
  const timeout = env.POSTURE_LLM_TIMEOUT_MS?.trim();
  if (timeout && !/^\d{3,6}$/.test(timeout))
    throw new Error('POSTURE_LLM_TIMEOUT_MS: must be 100..999999 milliseconds');
  return {
    baseUrl,
    model,
    ...(env.POSTURE_LLM_API_KEY ? { apiKey: env.POSTURE_LLM_API_KEY } : {}),
    ...(env.POSTURE_LLM_PROVIDER ? { provider: env.POSTURE_LLM_PROVIDER } : {}),
    ...(timeout ? { timeoutMs: Number(timeout) } : {}),
  };
}

const AnswerSchema = Type.Object({
  description: Type.String({ minLength: 1, maxLength: 8000 }),
  remediation: Type.String({ maxLength: 8000 }),
  severity: Type.Enum(SEVERITIES),
  malicious: Type.Boolean(),
  category: Type.Optional(Type.String({ maxLength: 64 })),
  mitreAttackTechniques: Type.Optional(Type.Array(Type.String({ maxLength: 16 }), { maxItems: 32 })),
  maliciousProcessIDs: Type.Optional(Type.Array(Type.String({ maxLength: 64 }), { maxItems: 256 })),
  falsePositive: Type.Optional(Type.Boolean()),
  falsePositiveReason: Type.Optional(Type.String({ maxLength: 2000 })),
});
type Answer = Static<typeof AnswerSchema>;
const answerValidator = Compile(AnswerSchema);

class AnalyserFailure extends Error {}

async function readCapped(response: Response, maxBytes: number): Promise<string> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      throw new AnalyserFailure(`answer larger than ${maxBytes} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** The JSON object of the model's message; models like to wrap it in a Markdown fence. */
function parseAnswer(body: string): Answer {
  let content: unknown;
  try {
    content = (JSON.parse(body) as { choices?: { message?: { content?: unknown } }[] }).choices?.[0]?.message
      ?.content;
  } catch {
    throw new AnalyserFailure('the provider did not answer JSON');
  }
  if (typeof content !== 'string') throw new AnalyserFailure('the answer holds no message content');
  const text = content
    .trim()
    .replace(/^```(?:json)?\s*/i, '')
    .replace(/\s*```$/, '');
  let answer: unknown;
  try {
    answer = JSON.parse(text);
  } catch {
    throw new AnalyserFailure('the message is not a JSON object');
  }
  if (!answerValidator.Check(answer)) {
    const first = answerValidator.Errors(answer)[0];
    throw new AnalyserFailure(
      `the message does not have the asked fields (${first?.instancePath || '/'} ${first?.message ?? ''})`,
    );
  }
  return answer;
}

function knownProcessIds(state: WorkloadContainerState): Set<string> {
  return new Set(
    [...Object.values(state.baseline.nodes), ...Object.values(state.ongoing.nodes)].map((n) => n.id),
  );
}

export function createLlmAnalyser(config: LlmAnalyserConfig, fetchImpl: typeof fetch = fetch): LlmAnalyser {
  const endpoint = `${config.baseUrl.replace(/\/+$/, '')}/chat/completions`;
  const provider = config.provider ?? new URL(config.baseUrl).host;
  const timeoutMs = config.timeoutMs ?? 20_000;
  const maxBytes = config.maxResponseBytes ?? 1024 * 1024;

  async function ask(userPrompt: string): Promise<Answer> {
    const response = await fetchImpl(endpoint, {
      method: 'POST',
      signal: AbortSignal.timeout(timeoutMs),
      headers: {
        'content-type': 'application/json',
        ...(config.apiKey ? { authorization: `Bearer ${config.apiKey}` } : {}),
      },
      body: JSON.stringify({
        model: config.model,
        temperature: 0,
        response_format: { type: 'json_object' },
        messages: [
          { role: 'system', content: LLM_SYSTEM_PROMPT },
          { role: 'user', content: userPrompt },
        ],
      }),
    });
    if (!response.ok) {
      await response.body?.cancel();
      throw new AnalyserFailure(`the provider answered HTTP ${response.status}`);
    }
    return parseAnswer(await readCapped(response, maxBytes));
  }

  return {
    provider,
    model: config.model,
    async analyse(state, ruleRecord) {
      const userPrompt = buildAnalysisPrompt(state, ruleRecord);
      const prompt = `${LLM_SYSTEM_PROMPT}\n\n${userPrompt}`;
      const base = {
        ...ruleRecord,
        llmProvider: provider,
        model: config.model,
        prompt,
        promptDigest: createHash('sha256').update(prompt).digest('hex'),
        totalRequests: 1,
      };
      try {
        const answer = await ask(userPrompt);
        const techniques = (answer.mitreAttackTechniques ?? [])
          .filter(isTechniqueId)
          .flatMap((id) => techniqueRef(id) ?? []);
        const known = knownProcessIds(state);
        const malicious = answer.malicious;
        return {
          ...base,
          action: malicious
            ? 'terminate_pod'
            : severityRank(answer.severity) >= severityRank('high')
              ? 'investigate'
              : 'review',
          category: answer.category || ruleRecord.category,
          description: answer.description,
          remediation: answer.remediation || ruleRecord.remediation,
          severity: answer.severity,
          falsePositive: answer.falsePositive ?? false,
          falsePositiveReason: answer.falsePositiveReason ?? '',
          maliciousProcessIDs: malicious
            ? (answer.maliciousProcessIDs ?? []).filter((id) => known.has(id))
            : [],
          mitreAttackTechniques: techniques,
          mitreAttackTactics: tacticRefs(techniques.flatMap((t) => t.tactics.map((tactic) => tactic.id))),
          refs: techniques.map((t) => techniqueLink(t.id)),
          status: 'completed',
        };
      } catch (error) {
        const reason =
          error instanceof AnalyserFailure
            ? error.message
            : (error as Error).name === 'TimeoutError'
              ? `no answer within ${timeoutMs} ms`
              : `the provider could not be reached (${(error as Error).message})`;
        return {
          ...base,
          status: 'failed',
          partial: true,
          description: `${ruleRecord.description} (LLM analysis failed: ${reason}; this is the rule-based analysis.)`,
        };
      }
    },
  };
}
