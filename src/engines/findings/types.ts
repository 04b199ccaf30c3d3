/**
 * What every findings rule produces: a FindingDraft, pure data computed from stored state. The
 * evaluation service (src/modules/findings/evaluate.ts) gives drafts their fingerprint and group,
 * diffs them with the stored findings and writes the difference.
 */

/** Lowercase severities of the finding groups' vocabulary (DESIGN.md 6), least severe first. */
export const FINDING_SEVERITIES = ['negligible', 'low', 'medium', 'high', 'critical'] as const;
export type FindingSeverity = (typeof FINDING_SEVERITIES)[number];

/** `severity_int`: 1 (negligible) to 5 (critical), so that a higher number is more severe. */
export const severityInt = (severity: FindingSeverity): number => FINDING_SEVERITIES.indexOf(severity) + 1;

export const isFindingSeverity = (value: string): value is FindingSeverity =>
  (FINDING_SEVERITIES as readonly string[]).includes(value);

export function maxSeverity(a: FindingSeverity, b: FindingSeverity): FindingSeverity {
  return severityInt(a) >= severityInt(b) ? a : b;
}

/**
 * The four evaluations. Each one owns the findings it wrote and is the only one that may confirm
 * or delete them: a misconfiguration evaluation of one object never touches an identity finding.
 */
export type FindingFamily = 'misconfiguration' | 'identity' | 'vulnerability' | 'runtime';

/** Finding group `type` values (DESIGN.md 6: the clients' vocabulary plus our own). */
export type FindingType = 'k8s_misconfiguration' | 'identity_risk' | 'vulnerability' | 'runtime_alert';

/** Finding group `source_type` values. */
export type FindingSourceType = 'kubeobject' | 'container' | 'identity' | 'image';

export interface RuleDefinition {
  id: string;
  title: string;
  severity: FindingSeverity;
  type: FindingType;
  family: FindingFamily;
  /** one sentence: what the rule looks at and why it matters (rule_attrs.description) */
  description: string;
}

/** The object a group is about: a workload, a workload container, an identity or an image. */
export interface FindingSource {
  type: FindingSourceType;
  /** Deployment, Pod, ... for objects and containers; the identity type; ContainerImage */
  kind: string;
  /** stable id of the object: Kubernetes uid, runtime workload id, identity id or image id */
  id: string;
  name: string;
  namespace: string;
  attrs: Record<string, unknown>;
}

export interface FindingDraft {
  rule: RuleDefinition;
  /** severity of this occurrence; the rule's own unless the rule grades (runtime, identity) */
  severity: FindingSeverity;
  clusterId: string;
  source: FindingSource;
  /** distinguishes the findings of one group ('' when a group holds one finding at most) */
  detailKey: string;
  /**
   * The evaluation scope that owns this finding (stored as source_key), when it is narrower than
   * the family's default (the source object for misconfigurations, the cluster otherwise): a
   * vulnerability finding belongs to its image, so a scan re-evaluates that image's findings only.
   */
  scopeKey?: string;
  messages: string[];
  fixAttrs: Record<string, unknown>;
  /** rule-specific facts of this occurrence (container name, CVE id, ...) */
  ruleAttrs: Record<string, unknown>;
}
