/**
 * The MITRE ATT&CK (Enterprise, v15) tactics and techniques the runtime rules and Falco's tags
 * map to, with their official names; links are built from the ids the way attack.mitre.org
 * spells them (T1059.004 -> /techniques/T1059/004/).
 *
 * @example
 *   techniqueRef('T1528') // { id: 'T1528', name: 'Steal Application Access Token', link, tactics: [...] }
 */

export interface TacticRef {
  id: string;
  name: string;
  link: string;
}

export interface TechniqueRef extends TacticRef {
  tactics: TacticRef[];
}

const TACTIC_NAMES: Record<string, string> = {
  TA0001: 'Initial Access',
  TA0002: 'Execution',
  TA0003: 'Persistence',
  TA0004: 'Privilege Escalation',
  TA0005: 'Defense Evasion',
  TA0006: 'Credential Access',
  TA0007: 'Discovery',
  TA0008: 'Lateral Movement',
  TA0009: 'Collection',
  TA0010: 'Exfiltration',
  TA0011: 'Command and Control',
  TA0040: 'Impact',
};

/** Falco tags tactics by name (`mitre_execution`). */
const TACTIC_BY_FALCO_TAG: Record<string, string> = Object.fromEntries(
  Object.entries(TACTIC_NAMES).map(([id, name]) => [`mitre_${name.toLowerCase().replace(/ /g, '_')}`, id]),
);

const TECHNIQUES: Record<string, [name: string, tactics: string[]]> = {
  T1003: ['OS Credential Dumping', ['TA0006']],
  'T1003.008': ['OS Credential Dumping: /etc/passwd and /etc/shadow', ['TA0006']],
  T1016: ['System Network Configuration Discovery', ['TA0007']],
  T1033: ['System Owner/User Discovery', ['TA0007']],
  T1041: ['Exfiltration Over C2 Channel', ['TA0010']],
  T1046: ['Network Service Discovery', ['TA0007']],
  'T1053.003': ['Scheduled Task/Job: Cron', ['TA0002', 'TA0003', 'TA0004']],
  T1057: ['Process Discovery', ['TA0007']],
  T1059: ['Command and Scripting Interpreter', ['TA0002']],
  'T1059.004': ['Command and Scripting Interpreter: Unix Shell', ['TA0002']],
  'T1059.006': ['Command and Scripting Interpreter: Python', ['TA0002']],
  'T1070.004': ['Indicator Removal: File Deletion', ['TA0005']],
  T1071: ['Application Layer Protocol', ['TA0011']],
  'T1071.001': ['Application Layer Protocol: Web Protocols', ['TA0011']],
  T1082: ['System Information Discovery', ['TA0007']],
  T1083: ['File and Directory Discovery', ['TA0007']],
  T1098: ['Account Manipulation', ['TA0003', 'TA0004']],
  'T1098.004': ['Account Manipulation: SSH Authorized Keys', ['TA0003', 'TA0004']],
  T1105: ['Ingress Tool Transfer', ['TA0011']],
  'T1136.001': ['Create Account: Local Account', ['TA0003']],
  'T1222.002': [
    'File and Directory Permissions Modification: Linux and Mac File and Directory Permissions Modification',
    ['TA0005'],
  ],
  T1496: ['Resource Hijacking', ['TA0040']],
  T1525: ['Implant Internal Image', ['TA0003']],
  T1528: ['Steal Application Access Token', ['TA0006']],
  T1552: ['Unsecured Credentials', ['TA0006']],
  'T1552.001': ['Unsecured Credentials: Credentials In Files', ['TA0006']],
  'T1552.007': ['Unsecured Credentials: Container API', ['TA0006']],
  T1554: ['Compromise Host Software Binary', ['TA0003']],
  'T1574.006': ['Hijack Execution Flow: Dynamic Linker Hijacking', ['TA0003', 'TA0004', 'TA0005']],
  T1571: ['Non-Standard Port', ['TA0011']],
  T1609: ['Container Administration Command', ['TA0002']],
  T1610: ['Deploy Container', ['TA0002', 'TA0005']],
  T1611: ['Escape to Host', ['TA0004']],
  T1613: ['Container and Resource Discovery', ['TA0007']],
};

export function tacticRef(id: string): TacticRef | null {
  const name = TACTIC_NAMES[id];
  return name ? { id, name, link: `https://attack.mitre.org/tactics/${id}/` } : null;
}

export const techniqueLink = (id: string): string =>
  `https://attack.mitre.org/techniques/${id.replace('.', '/')}/`;

/** A known technique with its tactics; null for an id this catalog does not hold. */
export function techniqueRef(id: string): TechniqueRef | null {
  const known = TECHNIQUES[id];
  if (!known) return null;
  const [name, tactics] = known;
  return { id, name, link: techniqueLink(id), tactics: tactics.map((t) => tacticRef(t)!) };
}

export const isTechniqueId = (id: string): boolean => /^T\d{4}(?:\.\d{3})?$/.test(id);

/** Technique and tactic ids named by Falco tags (`T1059`, `mitre_execution`). */
export function mitreFromFalcoTags(tags: readonly string[]): { techniques: string[]; tactics: string[] } {
  const techniques = tags
    .map((tag) => tag.toUpperCase())
    .filter((tag) => isTechniqueId(tag) && TECHNIQUES[tag]);
  const tactics = tags.flatMap((tag) => {
    const upper = tag.toUpperCase();
    if (TACTIC_NAMES[upper]) return [upper]; // Falco also tags tactics by id (TA0003)
    return TACTIC_BY_FALCO_TAG[tag.toLowerCase()] ?? [];
  });
  return { techniques, tactics };
}

/** Tactic refs for ids, in ATT&CK's kill-chain order, without repeats. */
export function tacticRefs(ids: Iterable<string>): TacticRef[] {
  const order = Object.keys(TACTIC_NAMES);
  return [...new Set(ids)]
    .filter((id) => TACTIC_NAMES[id])
    .sort((a, b) => order.indexOf(a) - order.indexOf(b))
    .map((id) => tacticRef(id)!);
}

export function techniqueRefs(ids: Iterable<string>): TechniqueRef[] {
  return [...new Set(ids)].sort().flatMap((id) => techniqueRef(id) ?? []);
}
