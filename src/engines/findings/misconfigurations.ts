/**
 * Misconfiguration findings of workload objects. Attribution: an object with a controller
 * (a Pod of a ReplicaSet, a ReplicaSet of a Deployment, a Job of a CronJob) is not judged itself;
 * its top controller's pod template is, once, so three replicas of a privileged Deployment make
 * one finding on the Deployment rather than four. A pod without a controller is judged itself;
 * a pod that has finished runs nothing and is not.
 *
 * @example
 *   workloadFindings('cluster-id', [deployment]) // FindingDraft[] for each rule that fires
 */
import type { FindingDraft } from './types.js';
import { hasFinished, podTemplateOf, type WorkloadObject } from './workload.js';
import { WORKLOAD_RULES } from './workload-rules.js';

export interface EvaluatedWorkload extends WorkloadObject {
  /** the controller ownerReference's uid, when the object has one */
  ownerUid: string | null;
}

/** Whether the object is judged itself (see the module comment). */
export const isJudged = (object: EvaluatedWorkload): boolean =>
  object.ownerUid === null && !hasFinished(object);

export function workloadFindings(clusterId: string, objects: readonly EvaluatedWorkload[]): FindingDraft[] {
  return objects.flatMap((object) => {
    if (!isJudged(object)) return [];
    const template = podTemplateOf(object);
    if (!template) return [];
    const source = {
      type: 'kubeobject' as const,
      kind: object.kind,
      id: object.uid,
      name: object.name,
      namespace: object.namespace,
      attrs: { uid: object.uid, kind: object.kind, name: object.name, namespace: object.namespace },
    };
    return WORKLOAD_RULES.flatMap((rule) =>
      rule.check(template).map((occurrence) => ({
        rule,
        severity: rule.severity,
        clusterId,
        source,
        detailKey: occurrence.detailKey,
        messages: occurrence.messages,
        fixAttrs: occurrence.fixAttrs,
        ruleAttrs: occurrence.ruleAttrs,
      })),
    );
  });
}
