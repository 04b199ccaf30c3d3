/**
 * Severity rules over drift (docs/runtime-events.md, "Severity rules"): each drifted exec, file
 * access or connection, and each Falco alert, yields rule hits with a severity, a category and
 * the ATT&CK techniques it maps to. Only activity the baseline does not cover reaches the exec,
 * file and connect rules; a Falco alert counts whether or not it drifted.
 *
 * @example
 *   execRules({ comm: 'sh', exe: '/bin/sh', args: ['-c', 'id'], parentComm: 'nginx', newNode: true, ... })
 *   // [{ rule: 'shell_spawned', severity: 'high', techniques: ['T1059.004'], ... }]
 */
import type { RuntimeAlert } from './event-schema.js';
import type { TrustedPrefix } from './ip.js';
import { mitreFromFalcoTags } from './mitre.js';
import { RULES, type RuleId, type RuleSpec } from './rule-catalog.js';
import { type Severity, severityOfFalcoPriority } from './severity.js';

export interface RuleHit {
  rule: RuleId;
  severity: Severity;
  category: string;
  /** what the hit is about, the aggregation key with the rule: a program, a path, a destination */
  subject: string;
  detail: string;
  tactics: string[];
  techniques: string[];
  malicious: boolean;
}

export interface ExecContext {
  comm: string;
  exe: string;
  args: readonly string[];
  parentComm: string | null;
  /** the position in the process tree is not in the baseline */
  newNode: boolean;
  /** the baseline ran this program at this position, with other arguments */
  knownProgram: boolean;
  /** the workload opened the executable for writing before running it */
  wasWritten: boolean;
}

export interface FileContext {
  path: string;
  write: boolean;
  comm: string;
  /** the process is itself not in the baseline */
  newNode: boolean;
}

export interface ConnectContext {
  address: string;
  port: number;
  hostname: string;
  k8sName: string;
  k8sNamespace: string;
  trusted: TrustedPrefix | null;
  internal: boolean;
  comm: string;
}

const set = (...names: string[]) => new Set(names);
const SHELLS = set('sh', 'bash', 'dash', 'ash', 'zsh', 'ksh', 'mksh', 'csh', 'tcsh', 'fish');
const PACKAGE_MANAGERS = set(
  ...['apt', 'apt-get', 'aptitude', 'dpkg', 'yum', 'dnf', 'microdnf', 'rpm', 'apk', 'zypper', 'pacman'],
  ...['pip', 'pip3', 'pipx', 'npm', 'yarn', 'pnpm', 'gem'],
);
const TRANSFER_TOOLS = set(
  'curl',
  'wget',
  'aria2c',
  'scp',
  'sftp',
  'ftp',
  'tftp',
  'nc',
  'ncat',
  'netcat',
  'socat',
);
const SCANNERS = set('nmap', 'masscan', 'zmap', 'nping', 'rustscan');
const CLUSTER_CLIENTS = set('kubectl', 'helm', 'crictl', 'ctr', 'docker', 'oc');
const ESCAPE_TOOLS = set('nsenter', 'unshare', 'chroot', 'mount', 'capsh');
const PERMISSION_TOOLS = set('chmod', 'chown', 'chattr', 'setfacl');
const MINERS = set('xmrig', 'minerd', 'cpuminer', 'ccminer', 'xmr-stak', 't-rex', 'nbminer');
const DISCOVERY: Record<string, string> = {
  id: 'T1033',
  whoami: 'T1033',
  who: 'T1033',
  w: 'T1033',
  uname: 'T1082',
  hostname: 'T1082',
  env: 'T1082',
  printenv: 'T1082',
  ps: 'T1057',
  ifconfig: 'T1016',
  ip: 'T1016',
  netstat: 'T1016',
  ss: 'T1016',
  find: 'T1083',
};
const REVERSE_SHELL = [
  /\/dev\/(?:tcp|udp)\//,
  /\b(?:nc|ncat|netcat)\b.*\s-[ec]\s/,
  /\bmkfifo\b/,
  /socat\b.*\bexec:/i,
  /import\s+socket/,
];
const OUTSIDE_IMAGE = ['/tmp/', '/var/tmp/', '/dev/shm/', '/run/', '/home/', '/root/', '/proc/', '/memfd:'];

const basename = (path: string) => path.slice(path.lastIndexOf('/') + 1);
const clip = (text: string, max = 160) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/** A hit of a catalogued rule; `override` carries what depends on the case (a technique, a severity). */
function hit(rule: RuleId, subject: string, detail: string, override: Partial<RuleSpec> = {}): RuleHit {
  const spec: RuleSpec = { ...RULES[rule], ...override };
  return {
    rule,
    severity: spec.severity,
    category: spec.category,
    subject,
    detail,
    techniques: spec.techniques,
    tactics: spec.tactics,
    malicious: spec.malicious ?? false,
  };
}

export function execRules(ctx: ExecContext): RuleHit[] {
  const name = basename(ctx.exe) || ctx.comm;
  const command = clip([ctx.exe || ctx.comm, ...ctx.args].join(' '));
  const under = ctx.parentComm ? ` under ${ctx.parentComm}` : '';
  const line = `${name} ${ctx.args.join(' ')}`;
  const hits: RuleHit[] = [];
  if (REVERSE_SHELL.some((pattern) => pattern.test(line)))
    hits.push(hit('reverse_shell', name, `a reverse shell (${command})${under}`));
  if (MINERS.has(name) || /stratum\+(?:tcp|ssl):\/\//.test(line))
    hits.push(hit('crypto_miner', name, `a crypto miner (${command})`));
  if (ctx.wasWritten && ctx.exe) {
    hits.push(
      hit('dropped_binary_executed', ctx.exe, `${ctx.exe}, written inside the container, was executed`),
    );
  } else if (OUTSIDE_IMAGE.some((dir) => ctx.exe.startsWith(dir))) {
    hits.push(hit('binary_outside_image', ctx.exe, `${ctx.exe} ran from outside the image paths`));
  }
  if (SHELLS.has(name) || (name === 'busybox' && SHELLS.has(ctx.args[0] ?? ''))) {
    hits.push(hit('shell_spawned', name, `a shell (${command}) started${under}`));
  }
  if (PACKAGE_MANAGERS.has(name))
    hits.push(hit('package_manager', name, `a package manager ran (${command})`));
  if (SCANNERS.has(name) || (/^(?:nc|ncat|netcat)$/.test(name) && ctx.args.includes('-z'))) {
    hits.push(hit('network_scanner', name, `a network scanner ran (${command})`));
  } else if (TRANSFER_TOOLS.has(name)) {
    hits.push(hit('transfer_tool', name, `a transfer tool ran (${command})`));
  }
  if (CLUSTER_CLIENTS.has(name)) hits.push(hit('cluster_client', name, `a cluster client ran (${command})`));
  if (ESCAPE_TOOLS.has(name))
    hits.push(hit('escape_tool', name, `a namespace or mount tool ran (${command})`));
  if (PERMISSION_TOOLS.has(name))
    hits.push(hit('permission_change', name, `file permissions changed (${command})`));
  const discovery = DISCOVERY[name];
  if (discovery)
    hits.push(hit('discovery_command', name, `${command} ran${under}`, { techniques: [discovery] }));
  if (hits.length > 0) return hits;
  return ctx.knownProgram
    ? [hit('new_arguments', name, `${name} ran with arguments not seen before (${command})`)]
    : [hit('new_program', name, `a program not in the baseline ran (${command})${under}`)];
}

const SERVICE_ACCOUNT_TOKEN =
  /^\/(?:var\/)?run\/secrets\/(?:kubernetes\.io|eks\.amazonaws\.com)\/serviceaccount\/(?:.*\/)?token$|^\/(?:var\/)?run\/secrets\/tokens\//;
const SHADOW = /^\/etc\/g?shadow-?$/;
const CREDENTIAL_FILES = [
  /^\/etc\/sudoers(?:\.d\/.*)?$/,
  /^\/etc\/ssl\/private\//,
  /\/\.ssh\/id_[a-z0-9]+$/,
  /\/\.aws\/credentials$/,
  /\/\.kube\/config$/,
  /\/\.docker\/config\.json$/,
  /\/\.git-credentials$/,
  /^\/proc\/(?:\d+|self)\/environ$/,
];
/** Writes by path, most specific first; the first match names the rule. */
const WRITE_RULES: [RegExp, RuleId, string][] = [
  [/\/\.ssh\/authorized_keys2?$/, 'ssh_key_write', 'SSH authorized keys'],
  [/^\/etc\/(?:cron|anacrontab)|^\/var\/spool\/cron\//, 'scheduled_task_write', 'a scheduled task'],
  [/^\/etc\/(?:passwd|shadow|group|gshadow|sudoers)/, 'account_file_write', 'an account file'],
  [/^\/etc\/ld\.so\.preload$/, 'dynamic_linker_write', 'the dynamic linker preload list'],
  [/^\/(?:usr\/(?:local\/)?)?s?bin\//, 'system_binary_write', 'a system binary'],
  [/^\/(?:etc|usr|bin|sbin|lib|lib32|lib64|boot)\//, 'system_path_write', 'under a system directory'],
];

export function fileRules(ctx: FileContext): RuleHit[] {
  const { path, comm } = ctx;
  if (SERVICE_ACCOUNT_TOKEN.test(path)) {
    const severity = ctx.newNode ? 'critical' : 'high';
    return [
      hit('service_account_token', path, `${comm} read the service-account token (${path})`, { severity }),
    ];
  }
  if (ctx.write) {
    const rule = WRITE_RULES.find(([pattern]) => pattern.test(path));
    if (rule) return [hit(rule[1], path, `${comm} wrote ${rule[2]} (${path})`)];
    return [hit('new_file_write', path, `${comm} wrote a file not in the baseline (${path})`)];
  }
  if (SHADOW.test(path))
    return [hit('sensitive_file_read', path, `${comm} read ${path}`, { techniques: ['T1003.008'] })];
  if (CREDENTIAL_FILES.some((pattern) => pattern.test(path)))
    return [hit('sensitive_file_read', path, `${comm} read ${path}`)];
  return [hit('new_file_read', path, `${comm} read a file not in the baseline (${path})`)];
}

const WEB_PORTS = new Set([80, 443, 8080, 8443]);

export function connectRules(ctx: ConnectContext): RuleHit[] {
  const destination = `${ctx.hostname || ctx.address}:${ctx.port}`;
  if (ctx.k8sName === 'kubernetes' || ctx.port === 6443) {
    return [
      hit(
        'kubernetes_api_access',
        destination,
        `${ctx.comm} connected to the Kubernetes API (${destination})`,
      ),
    ];
  }
  if (ctx.trusted) {
    return [
      hit(
        'new_trusted_connection',
        destination,
        `${ctx.comm} connected to ${destination} (trusted: ${ctx.trusted.name})`,
      ),
    ];
  }
  if (ctx.internal)
    return [hit('new_internal_connection', destination, `${ctx.comm} connected to ${destination}`)];
  const detail = `${ctx.comm} connected to ${destination}, an untrusted address outside the cluster`;
  return [
    hit('untrusted_egress', destination, detail, {
      techniques: WEB_PORTS.has(ctx.port) ? ['T1071.001'] : ['T1571'],
    }),
  ];
}

export function alertRule(alert: RuntimeAlert, comm: string): RuleHit {
  const { techniques, tactics } = mitreFromFalcoTags(alert.tags);
  const detail = `${alert.source} rule "${alert.rule}" (${alert.priority}) fired on ${comm}`;
  return hit('falco_alert', alert.rule, detail, {
    severity: severityOfFalcoPriority(alert.priority),
    techniques,
    tactics,
  });
}
