import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type FalcoAlert, mapFalcoAlert, UNKNOWN_ID } from './falco.js';
import { mitreFromFalcoTags } from './mitre.js';

const base = (fields: Record<string, unknown>, extra: Partial<FalcoAlert> = {}): FalcoAlert => ({
  rule: 'Some rule',
  priority: 'Warning',
  time: '2025-01-01T10:00:00.000000000Z',
  tags: [],
  hostname: 'node-7',
  output_fields: {
    'container.id': '0123456789ab',
    'container.name': 'app',
    'container.image.repository': 'ghcr.io/shop/web',
    'container.image.tag': '1.0.0',
    'k8s.ns.name': 'shop',
    'k8s.pod.name': 'web-7c9d8f6b5d-k2x8p',
    ...fields,
  },
  ...extra,
});

function event(alert: FalcoAlert) {
  const mapped = mapFalcoAlert(alert);
  assert.equal(mapped.kind, 'event');
  return (mapped as Extract<typeof mapped, { kind: 'event' }>).event;
}

describe('Falco alert mapping', () => {
  test('an execve alert is a process_exec with the rule kept as its alert', () => {
    const e = event(
      base(
        {
          'evt.type': 'execve',
          'proc.name': 'bash',
          'proc.pid': 4242,
          'proc.ppid': '1',
          'proc.exepath': '/bin/bash',
          'proc.cmdline': 'bash -i',
          'user.uid': 0,
          'container.image.digest': 'sha256:abc',
        },
        {
          rule: 'Terminal shell in container',
          priority: 'Notice',
          tags: ['mitre_execution', 'T1059'],
          output: 'text',
        },
      ),
    );
    assert.equal(e.type, 'process_exec');
    assert.deepEqual(e.process, {
      pid: 4242,
      ppid: 1,
      comm: 'bash',
      exe: '/bin/bash',
      args: ['-i'],
      uid: 0,
      gid: UNKNOWN_ID,
    });
    assert.deepEqual(e.container, {
      id: '0123456789ab',
      name: 'app',
      image_name: 'ghcr.io/shop/web:1.0.0',
      image_digest: 'sha256:abc',
    });
    assert.deepEqual(e.kubernetes, {
      namespace: 'shop',
      pod: 'web-7c9d8f6b5d-k2x8p',
      node: 'node-7',
      workload_kind: 'Deployment',
      workload_name: 'web',
    });
    assert.deepEqual(e.alert, {
      source: 'falco',
      rule: 'Terminal shell in container',
      priority: 'notice',
      tags: ['mitre_execution', 'T1059'],
      output: 'text',
    });
  });

  test('open alerts are file_open with the open flags; proc.args wins over cmdline', () => {
    const e = event(
      base({
        'evt.type': 'openat',
        'fd.name': '/etc/shadow',
        'evt.arg.flags': 'O_RDWR|O_CREAT|O_CLOEXEC',
        'proc.name': 'python3',
        'proc.args': '-c import os',
        'proc.cmdline': 'python3 ignored',
      }),
    );
    assert.equal(e.type, 'file_open');
    if (e.type !== 'file_open') return;
    assert.deepEqual(e.file, { path: '/etc/shadow', flags: ['O_RDWR', 'O_CREAT', 'O_CLOEXEC'] });
    assert.deepEqual(e.process.args, ['-c', 'import', 'os']);
  });

  test('connect alerts are network_connect, from fd.rip/fd.rport or from fd.name', () => {
    const direct = event(
      base({
        'evt.type': 'connect',
        'fd.rip': '203.0.113.9',
        'fd.rport': 4444,
        'fd.l4proto': 'tcp',
        'fd.rip.name': 'evil.example',
      }),
    );
    assert.equal(direct.type, 'network_connect');
    if (direct.type === 'network_connect') {
      assert.deepEqual(direct.connection, {
        address: '203.0.113.9',
        port: 4444,
        hostname: 'evil.example',
        protocol: 'tcp',
      });
    }
    const fromName = event(
      base({ 'fd.name': '10.0.0.5:43210->[2001:db8::7]:443', 'fd.sip': undefined, 'evt.type': 'connect' }),
    );
    if (fromName.type === 'network_connect')
      assert.deepEqual(fromName.connection, { address: '2001:db8::7', port: 443 });
    else assert.fail('expected network_connect');
    // no evt.type: the fields decide
    assert.equal(event(base({ 'fd.rip': '10.1.1.1', 'fd.rport': 53 })).type, 'network_connect');
    assert.equal(event(base({ 'fd.name': '/var/log/x' })).type, 'file_open');
    assert.equal(event(base({ 'proc.name': 'nc' })).type, 'process_exec');
  });

  test('the workload comes from k8smeta fields, the ReplicaSet, or the pod name of a Deployment', () => {
    const kind = (fields: Record<string, unknown>) => {
      const k = event(base(fields)).kubernetes;
      return `${k.workload_kind}/${k.workload_name}`;
    };
    assert.equal(kind({ 'k8smeta.statefulset.name': 'db' }), 'StatefulSet/db');
    assert.equal(kind({ 'k8s.rs.name': 'api-6b8d5f9c7d' }), 'Deployment/api');
    assert.equal(kind({}), 'Deployment/web');
    assert.equal(kind({ 'k8s.pod.name': 'postgres-0' }), 'Pod/postgres-0');
    // Kubernetes never generates vowels in name suffixes: this pod was named by hand
    assert.equal(kind({ 'k8s.pod.name': 'web-7c9d8f6b5d-aeiou' }), 'Pod/web-7c9d8f6b5d-aeiou');
  });

  test('host events and events without namespace or pod are skipped with a reason', () => {
    assert.deepEqual(mapFalcoAlert(base({ 'container.id': 'host' })), {
      kind: 'skipped',
      reason: 'not in a container',
    });
    const noPod = mapFalcoAlert(base({ 'k8s.pod.name': '<NA>' }));
    assert.equal(noPod.kind, 'skipped');
  });

  test('priorities map case-insensitively, unknown ones to warning', () => {
    const priority = (p: string) => event(base({}, { priority: p })).alert?.priority;
    assert.equal(priority('CRITICAL'), 'critical');
    assert.equal(priority('Info'), 'informational');
    assert.equal(priority('Whatever'), 'warning');
  });

  test('Falco tags name ATT&CK techniques and tactics', () => {
    assert.deepEqual(
      mitreFromFalcoTags(['container', 'mitre_credential_access', 'T1552.001', 'TA0003', 'T9999']),
      {
        techniques: ['T1552.001'],
        tactics: ['TA0006', 'TA0003'],
      },
    );
  });
});
