/**
 * Identity risk findings (type identity_risk, source_type identity): an identity of the
 * identities engine (docs/identity-risk.md) whose risk level is High or Critical. One finding per
 * identity; a change of level moves it from one rule's group to the other's.
 */
import type { FindingDraft, RuleDefinition } from './types.js';

export interface IdentityFacts {
  id: string;
  name: string;
  namespace: string;
  /** k8s_service_account, k8s_user, k8s_group */
  type: string;
  /** Unspecified .. Critical, as the identities engine computes it */
  riskLevel: string;
  riskScore: number;
  /** the types of the identity's open risks */
  riskTypes: readonly string[];
  /** open or resolved; a resolved identity no longer exists in the cluster */
  status: string;
}

const identity = { type: 'identity_risk', family: 'identity' } as const;

export const IDENTITY_RULES = {
  Critical: {
    ...identity,
    id: 'IDN-001',
    title: 'Identity with a critical risk level',
    severity: 'critical',
    description: 'An identity whose permissions amount to cluster takeover (risk level Critical).',
  },
  High: {
    ...identity,
    id: 'IDN-002',
    title: 'Identity with a high risk level',
    severity: 'high',
    description: 'An identity whose permissions allow escalation or secret access (risk level High).',
  },
} as const satisfies Record<string, RuleDefinition>;

export function identityFindings(clusterId: string, identities: readonly IdentityFacts[]): FindingDraft[] {
  return identities.flatMap((facts) => {
    const rule = IDENTITY_RULES[facts.riskLevel as keyof typeof IDENTITY_RULES];
    if (!rule || facts.status !== 'open') return [];
    const risks = [...facts.riskTypes].sort();
    return [
      {
        rule,
        severity: rule.severity,
        clusterId,
        source: {
          type: 'identity',
          kind: facts.type,
          id: facts.id,
          name: facts.name,
          namespace: facts.namespace,
          attrs: { identity_id: facts.id, type: facts.type },
        },
        detailKey: '',
        messages: [
          `risk level ${facts.riskLevel} (score ${facts.riskScore})${risks.length > 0 ? `: ${risks.join(', ')}` : ''}`,
        ],
        fixAttrs: { action: 'narrow the roles bound to this identity' },
        ruleAttrs: { risk_level: facts.riskLevel, risk_score: facts.riskScore, risk_types: risks },
      },
    ];
  });
}
