/** Each workload rule must fire on its bad example and must not fire on the good one. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type EvaluatedWorkload, workloadFindings } from './misconfigurations.js';

type Json = Record<string, unknown>;

/** A Deployment whose single container passes every rule, changed by `edit`. */
function deployment(edit: (spec: Json, container: Json) => void = () => {}, owner: string | null = null) {
  const container: Json = {
    name: 'app',
    image: 'registry.example.com/shop/app:1.4.2',
    resources: { limits: { cpu: '500m', memory: '256Mi' } },
    securityContext: { allowPrivilegeEscalation: false, runAsNonRoot: true },
  };
  const spec: Json = { containers: [container] };
  edit(spec, container);
  const object: EvaluatedWorkload = {
    uid: 'uid-1',
    kind: 'Deployment',
    name: 'app',
    namespace: 'shop',
    ownerUid: owner,
    raw: { kind: 'Deployment', spec: { template: { spec } } },
  };
  return object;
}

const ruleIds = (object: EvaluatedWorkload) => workloadFindings('c1', [object]).map((draft) => draft.rule.id);
const sec = (container: Json) => container.securityContext as Json;

test('a hardened workload has no finding', () => {
  assert.deepEqual(ruleIds(deployment()), []);
});

const cases: { rule: string; must: (spec: Json, c: Json) => void; mustNot: (spec: Json, c: Json) => void }[] =
  [
    {
      rule: 'K8S-001',
      must: (_s, c) => Object.assign(sec(c), { privileged: true }),
      mustNot: (_s, c) => Object.assign(sec(c), { privileged: false }),
    },
    {
      rule: 'K8S-002',
      must: (s) => Object.assign(s, { hostPID: true }),
      mustNot: (s) => Object.assign(s, { hostPID: false }),
    },
    {
      rule: 'K8S-003',
      must: (s) => Object.assign(s, { hostNetwork: true }),
      mustNot: (s) => Object.assign(s, { hostNetwork: false }),
    },
    {
      rule: 'K8S-004',
      must: (s) => Object.assign(s, { hostIPC: true }),
      mustNot: (s) => Object.assign(s, { hostIPC: false }),
    },
    {
      rule: 'K8S-005',
      must: (s) => Object.assign(s, { volumes: [{ name: 'root', hostPath: { path: '/' } }] }),
      mustNot: (s) => Object.assign(s, { volumes: [{ name: 'tmp', emptyDir: {} }] }),
    },
    {
      rule: 'K8S-006',
      // root from the pod-level securityContext, which the container inherits
      must: (s, c) => {
        Object.assign(s, { securityContext: { runAsUser: 0 } });
        delete sec(c).runAsNonRoot;
      },
      mustNot: (s) => Object.assign(s, { securityContext: { runAsUser: 1000 } }),
    },
    {
      rule: 'K8S-007',
      must: (_s, c) => delete sec(c).runAsNonRoot,
      // a non-zero uid at pod level is enough
      mustNot: (s, c) => {
        delete sec(c).runAsNonRoot;
        Object.assign(s, { securityContext: { runAsUser: 1000 } });
      },
    },
    {
      rule: 'K8S-008',
      must: (_s, c) => delete sec(c).allowPrivilegeEscalation,
      mustNot: (_s, c) => Object.assign(sec(c), { allowPrivilegeEscalation: false }),
    },
    {
      rule: 'K8S-009',
      must: (_s, c) => Object.assign(sec(c), { capabilities: { add: ['CAP_SYS_ADMIN'] } }),
      mustNot: (_s, c) =>
        Object.assign(sec(c), { capabilities: { add: ['NET_BIND_SERVICE'], drop: ['ALL'] } }),
    },
    {
      rule: 'K8S-010',
      must: (_s, c) => Object.assign(c, { resources: { limits: { cpu: '1' } } }),
      mustNot: (_s, c) => Object.assign(c, { resources: { limits: { cpu: '1', memory: '1Gi' } } }),
    },
    {
      rule: 'K8S-011',
      must: (_s, c) => Object.assign(c, { image: 'nginx' }),
      mustNot: (_s, c) =>
        Object.assign(c, {
          image: 'nginx@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef',
        }),
    },
  ];

describe('workload rules: must fire / must not fire', () => {
  for (const { rule, must, mustNot } of cases) {
    test(rule, () => {
      assert.deepEqual(ruleIds(deployment(must)), [rule], 'must fire');
      assert.deepEqual(ruleIds(deployment(mustNot)), [], 'must not fire');
    });
  }
});

test('K8S-011 fires for the latest tag too, and names the container', () => {
  const drafts = workloadFindings('c1', [
    deployment((_s, c) => Object.assign(c, { image: 'busybox:latest' })),
  ]);
  assert.equal(drafts.length, 1);
  assert.match(drafts[0]?.messages[0] ?? '', /container "app" uses the image busybox:latest tagged latest/);
  assert.equal(drafts[0]?.detailKey, 'container:app');
});

test('one finding per offending container; pod-level rules once per object', () => {
  const object = deployment((spec, c) => {
    Object.assign(sec(c), { privileged: true });
    Object.assign(spec, {
      hostPID: true,
      initContainers: [{ name: 'init', image: 'busybox:1.36', securityContext: { privileged: true } }],
    });
  });
  const drafts = workloadFindings('c1', [object]).filter((d) => ['K8S-001', 'K8S-002'].includes(d.rule.id));
  assert.deepEqual(drafts.map((d) => `${d.rule.id} ${d.detailKey}`).sort(), [
    'K8S-001 container:app',
    'K8S-001 container:init',
    'K8S-002 ',
  ]);
});

test('an object with a controller is judged through its controller, not itself', () => {
  const pod = deployment((_s, c) => Object.assign(sec(c), { privileged: true }), 'replicaset-uid');
  assert.deepEqual(ruleIds(pod), []);
});

test('a finished pod runs nothing and is not judged', () => {
  const pod: EvaluatedWorkload = {
    uid: 'p1',
    kind: 'Pod',
    name: 'done',
    namespace: 'jobs',
    ownerUid: null,
    raw: { kind: 'Pod', spec: { hostPID: true, containers: [] }, status: { phase: 'Succeeded' } },
  };
  assert.deepEqual(ruleIds(pod), []);
  pod.raw.status = { phase: 'Running' };
  assert.deepEqual(ruleIds(pod), ['K8S-002']);
});

test('a CronJob is judged through its job template', () => {
  const cron: EvaluatedWorkload = {
    uid: 'cj',
    kind: 'CronJob',
    name: 'nightly',
    namespace: 'jobs',
    ownerUid: null,
    raw: {
      kind: 'CronJob',
      spec: { jobTemplate: { spec: { template: { spec: { hostNetwork: true, containers: [] } } } } },
    },
  };
  assert.deepEqual(ruleIds(cron), ['K8S-003']);
});
