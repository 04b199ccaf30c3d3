/**
 * The runtime engine (issue 6), pure: no HTTP, no database. What ingestion does with a push:
 *
 *   const parsed = parseRuntimeEvents(body);                       // 400 with parsed.error.line
 *   for (const group of groupByWorkloadContainer(parsed.events, clusterId).values()) {
 *     const state = applyEvents(await loadState(group.id), group.key, group.events, options);
 *     if (shouldRaiseInsight(state)) { const analysis = analyseWithRules(state, ctx); ... }
 *   }
 *   const observations = observeHttpRequests(parsed.events, { clusterId, trustedPrefixes });
 *
 * See docs/runtime-events.md for the format, the rules and the configuration.
 */
export {
  advanceState,
  applyEvents,
  captureIfWindowElapsed,
  type EngineOptions,
  newWorkloadState,
} from './engine.js';
export * from './event-schema.js';
export { type FalcoAlert, FalcoAlertSchema, mapFalcoAlert } from './falco.js';
export { type HttpObservation, mergeHttpObservations, observeHttpRequests } from './http-observations.js';
export { buildRuntimeInsight, type RuntimeInsight, shouldRaiseInsight } from './insight.js';
export { createPrefixMatcher, isInternalAddress, parseCidr, parseIp, type TrustedPrefix } from './ip.js';
export {
  createLlmAnalyser,
  type LlmAnalyser,
  type LlmAnalyserConfig,
  llmAnalyserConfigFromEnv,
} from './llm-analyser.js';
export { type LineProblem, type ParseResult, parseRuntimeEvents } from './parse-events.js';
export { templateRequestTarget } from './path-template.js';
export { detectPii, PII_LABELS, type PiiLabel } from './pii.js';
export { type Fingerprint, renderFingerprint, truncateFingerprint } from './render-fingerprint.js';
export {
  type AnalysisContext,
  type AnalysisRecord,
  analyseWithRules,
  evaluateInsight,
} from './rule-analyser.js';
export { RULES, type RuleId, type RuleSpec } from './rule-catalog.js';
export { SEVERITIES, type Severity } from './severity.js';
export {
  DEFAULT_LEARNING_WINDOW,
  DEFAULT_LIMITS,
  type EngineLimits,
  type LearningWindow,
  type WorkloadContainerState,
  type WorkloadKey,
} from './state.js';
export {
  groupByWorkloadContainer,
  type WorkloadGroup,
  workloadKeyId,
  workloadKeyOf,
} from './workload-key.js';
