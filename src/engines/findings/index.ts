/** The findings engine: pure rules over what Posture stores (docs/findings.md). */
import { IDENTITY_RULES } from './identity-rules.js';
import { RUNTIME_RULES } from './runtime-rules.js';
import type { RuleDefinition } from './types.js';
import { VULNERABILITY_RULES } from './vulnerability-rules.js';
import { WORKLOAD_RULES } from './workload-rules.js';

export * from './fingerprint.js';
export * from './identity-rules.js';
export * from './misconfigurations.js';
export * from './runtime-rules.js';
export * from './types.js';
export * from './vulnerability-rules.js';
export { isWorkloadKind, WORKLOAD_KINDS } from './workload.js';
export { WORKLOAD_RULES } from './workload-rules.js';

/** Every rule, for documentation and the rule_id filter's description. */
export const ALL_RULES: readonly RuleDefinition[] = [
  ...WORKLOAD_RULES,
  ...Object.values(IDENTITY_RULES),
  ...Object.values(VULNERABILITY_RULES),
  ...Object.values(RUNTIME_RULES),
];
