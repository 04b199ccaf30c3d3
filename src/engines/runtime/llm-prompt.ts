/**
 * The prompt the LLM analyser sends: what the workload normally does is summarised by the rule
 * verdict and the drifted activity (processes with their ids and sample arguments, files,
 * connections), bounded in size so a noisy container cannot produce a huge request. The same
 * state always gives the same prompt, so its digest identifies the question asked.
 */
import type { AnalysisRecord } from './rule-analyser.js';
import { evaluateInsight } from './rule-analyser.js';
import { SEVERITIES } from './severity.js';
import type { WorkloadContainerState } from './state.js';

export const LLM_SYSTEM_PROMPT = [
  'You are a Kubernetes runtime security analyst. You get the activity of one container that its',
  'learned baseline does not cover, with the verdict of a rule engine. Explain what most likely',
  'happened and what to do. Answer with one JSON object and nothing else, with the fields:',
  `"description" (string), "remediation" (string), "severity" (one of ${SEVERITIES.join(', ')}),`,
  '"malicious" (boolean), "category" (string, e.g. execution, credential_access, command_and_control),',
  '"mitreAttackTechniques" (array of MITRE ATT&CK technique ids such as T1059.004),',
  '"maliciousProcessIDs" (array of process ids taken from the data), "falsePositive" (boolean),',
  '"falsePositiveReason" (string).',
].join('\n');

const MAX_NODES = 30;
const MAX_ITEMS = 10;
const clip = (text: string, max = 200) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

export function buildAnalysisPrompt(state: WorkloadContainerState, ruleRecord: AnalysisRecord): string {
  const { key, container, kubernetes } = state;
  const evaluation = evaluateInsight(state);
  const lines = [
    `Workload: ${key.workloadKind} ${key.namespace}/${key.workloadName}, container ${key.containerName}`,
    `Image: ${container.imageName}${container.imageDigest ? `@${container.imageDigest}` : ''}; pod ${kubernetes.pod}; node ${kubernetes.node}`,
    `Baseline captured: ${state.baselineCapturedAt ?? 'not yet (still learning)'}`,
    `Rule verdict: severity ${ruleRecord.severity}, malicious ${evaluation.malicious}, techniques ${
      ruleRecord.mitreAttackTechniques.map((t) => t.id).join(', ') || 'none'
    }`,
    '',
    'Signals (rule, severity, count, detail, process ids):',
    ...evaluation.signals.map(
      (s) => `- ${s.rule}, ${s.severity}, ${s.count}, ${clip(s.detail)}, [${s.processIds.join(', ')}]`,
    ),
    '',
    'Drifted processes (id, lineage) with their drifted programs, files and connections:',
  ];
  const drifted = Object.entries(state.ongoing.nodes)
    .filter(([, node]) => node.drift)
    .sort(([, a], [, b]) => a.firstSeen.localeCompare(b.firstSeen))
    .slice(0, MAX_NODES);
  for (const [lineage, node] of drifted) {
    lines.push(`- process ${node.id}: ${lineage} (uid ${node.uid}, ran ${node.execCount} times)`);
    for (const program of Object.values(node.programs)
      .filter((p) => p.drift)
      .slice(0, MAX_ITEMS)) {
      const samples = program.sampleArgs.map((args) =>
        clip([program.exe || program.comm, ...args].join(' ')),
      );
      lines.push(`  program ${program.comm}: ${samples.join(' | ')}`);
    }
    for (const file of Object.values(node.files)
      .filter((f) => f.drift)
      .slice(0, MAX_ITEMS)) {
      lines.push(`  file ${file.written ? 'written' : 'read'}: ${clip(file.path)}`);
    }
    for (const c of Object.values(node.connections)
      .filter((x) => x.drift)
      .slice(0, MAX_ITEMS)) {
      const trusted = c.trustedCIDR ? `trusted ${c.trustedCIDR}` : 'not trusted';
      lines.push(`  connection: ${c.address}:${c.port}${c.hostname ? ` (${c.hostname})` : ''}, ${trusted}`);
    }
  }
  return lines.join('\n');
}
