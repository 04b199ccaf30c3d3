/** The recompute diff: what is rewritten, touched, resolved and removed between two computations. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  pod,
  role,
  roleBinding,
  rule,
  saSubject,
  serviceAccount,
} from '../../engines/rbac/fixtures/builders.js';
import { computeIdentities } from '../../engines/rbac/index.js';
import {
  type PlanContext,
  planRecompute,
  type RecomputePlan,
  type StoredIdentity,
  type StoredRisk,
} from './plan.js';

const T1 = '2026-01-01T00:00:00.000Z';
const T2 = '2026-01-02T00:00:00.000Z';
const T3 = '2026-01-03T00:00:00.000Z';

const context = (now: string): PlanContext => ({
  accountId: '00000000-0000-4000-8000-000000000001',
  tenantId: '00000000-0000-4000-8000-000000000002',
  now,
  updatedAt: new Map(),
});

const compute = (objects: unknown[], now: string) =>
  computeIdentities({ clusterId: 'c1', clusterName: 'prod', objects, now }).identities;

/** What storage holds after applying a plan on top of the previous state (what the SQL does). */
function apply(
  plan: RecomputePlan,
  stored: Map<string, StoredIdentity>,
  risks: Map<string, StoredRisk[]>,
  now: string,
) {
  const identities = new Map(stored);
  for (const { identity, content, lifecycle } of plan.upserts) {
    identities.set(identity.id, { id: identity.id, ...lifecycle, content_hash: content.hash });
  }
  for (const touch of plan.touches) identities.set(touch.id, { ...identities.get(touch.id)!, ...touch });
  for (const { id, lifecycle } of plan.removals) identities.set(id, { ...identities.get(id)!, ...lifecycle });
  const next = new Map([...risks].map(([id, list]) => [id, list.map((risk) => ({ ...risk }))]));
  for (const resolution of plan.riskResolutions) {
    for (const risk of next.get(resolution.identity_id) ?? [])
      if (risk.id === resolution.id) risk.deleted_at = now;
  }
  for (const list of next.values())
    for (const risk of list) if (risk.deleted_at === null) risk.last_detected_at = now;
  for (const upsert of plan.riskUpserts) {
    const list = (next.get(upsert.risk.identity_id) ?? []).filter((risk) => risk.id !== upsert.risk.id);
    list.push({
      identity_id: upsert.risk.identity_id,
      id: upsert.risk.id,
      fingerprint: upsert.risk.fingerprint,
      first_detected_at: upsert.first_detected_at,
      last_detected_at: now,
      deleted_at: null,
      content_hash: upsert.content_hash,
    });
    next.set(upsert.risk.identity_id, list);
  }
  return { identities, risks: next };
}

const reader = role('shop', 'secret-reader', [rule('', 'secrets', 'get')]);
const binding = roleBinding('shop', 'api-secrets', 'secret-reader', [saSubject('shop', 'api')]);
const objects = [
  serviceAccount('shop', 'api'),
  pod('shop', 'api-1', { serviceAccountName: 'api' }),
  reader,
  binding,
];

describe('planRecompute', () => {
  test('first computation: every identity and risk is new, created and updated now', () => {
    const computed = compute(objects, T1);
    const plan = planRecompute(computed, new Map(), new Map(), context(T1));
    assert.equal(plan.upserts.length, computed.length);
    assert.deepEqual(plan.touches, []);
    assert.deepEqual(plan.removals, []);
    assert.equal(plan.riskUpserts.length, computed.flatMap((identity) => identity.risks).length);
    const api = plan.upserts.find((upsert) => upsert.identity.name === 'api')!;
    assert.deepEqual(
      [
        api.lifecycle.status,
        api.lifecycle.created_at,
        api.lifecycle.updated_at,
        api.lifecycle.last_detected_at,
      ],
      ['open', T1, T1, T1],
    );
    assert.deepEqual(
      api.content.facets.filter((facet) => facet.facet === 'risk'),
      [{ facet: 'risk', value: 'secrets_read' }],
    );
  });

  test('the same objects again: no row rewritten, only detection and use times move on', () => {
    const first = planRecompute(compute(objects, T1), new Map(), new Map(), context(T1));
    const stored = apply(first, new Map(), new Map(), T1);
    const second = planRecompute(compute(objects, T2), stored.identities, stored.risks, context(T2));
    assert.deepEqual(second.upserts, []);
    assert.deepEqual(second.riskUpserts, []);
    assert.deepEqual(second.riskResolutions, []);
    const api = compute(objects, T2).find((identity) => identity.name === 'api')!;
    assert.deepEqual(second.touches, [{ id: api.id, last_used_at: T2, last_detected_at: T2 }]);
  });

  test('a binding deleted: its risk is resolved and the identity resolved (risks_resolved)', () => {
    const first = planRecompute(compute(objects, T1), new Map(), new Map(), context(T1));
    const stored = apply(first, new Map(), new Map(), T1);
    const withoutBinding = objects.filter((object) => object !== binding);
    const second = planRecompute(compute(withoutBinding, T2), stored.identities, stored.risks, context(T2));
    const api = second.upserts.find((upsert) => upsert.identity.name === 'api')!;
    assert.deepEqual(
      [
        api.lifecycle.status,
        api.lifecycle.resolved_at,
        api.lifecycle.resolved_reason,
        api.lifecycle.created_at,
      ],
      ['resolved', T2, 'risks_resolved', T1],
    );
    assert.equal(api.lifecycle.last_detected_at, T1, 'last detected when the risk was last seen');
    assert.deepEqual(
      second.riskResolutions,
      first.riskUpserts.map((upsert) => ({ identity_id: upsert.risk.identity_id, id: upsert.risk.id })),
    );
    // The binding comes back: the risk reopens with its first detection kept.
    const resolved = apply(second, stored.identities, stored.risks, T2);
    const third = planRecompute(compute(objects, T3), resolved.identities, resolved.risks, context(T3));
    assert.deepEqual(
      third.riskUpserts.map((upsert) => upsert.first_detected_at),
      [T1],
    );
    assert.equal(third.upserts.find((upsert) => upsert.identity.name === 'api')!.lifecycle.status, 'open');
  });

  test('an identity gone from the cluster is removed as identity_deleted, its risks resolved', () => {
    const first = planRecompute(compute(objects, T1), new Map(), new Map(), context(T1));
    const stored = apply(first, new Map(), new Map(), T1);
    const second = planRecompute(compute([reader], T2), stored.identities, stored.risks, context(T2));
    assert.equal(second.removals.length, 1);
    assert.deepEqual(
      [
        second.removals[0]!.lifecycle.status,
        second.removals[0]!.lifecycle.resolved_reason,
        second.removals[0]!.lifecycle.deleted_at,
      ],
      ['resolved', 'identity_deleted', T2],
    );
    assert.equal(second.riskResolutions.length, 1);
    // Gone it stays: a later computation does not remove it again.
    const after = apply(second, stored.identities, stored.risks, T2);
    assert.deepEqual(
      planRecompute(compute([reader], T3), after.identities, after.risks, context(T3)).removals,
      [],
    );
  });

  test('last_used_at never goes back when the pods are gone', () => {
    const first = planRecompute(compute(objects, T1), new Map(), new Map(), context(T1));
    const stored = apply(first, new Map(), new Map(), T1);
    const withoutPod = objects.filter((object) => (object as { kind: string }).kind !== 'Pod');
    const second = planRecompute(compute(withoutPod, T2), stored.identities, stored.risks, context(T2));
    const api = second.upserts.find((upsert) => upsert.identity.name === 'api');
    assert.equal(api?.lifecycle.last_used_at, T1);
  });

  test('a row stored before its API text was cached: the text alone is filled, nothing rewritten', () => {
    const first = planRecompute(compute(objects, T1), new Map(), new Map(), context(T1));
    const stored = apply(first, new Map(), new Map(), T1);
    const api = first.upserts.find((upsert) => upsert.identity.name === 'api')!.identity;
    const uncached = new Map(stored.identities);
    uncached.set(api.id, { ...uncached.get(api.id)!, json_cached: false });
    const second = planRecompute(compute(objects, T2), uncached, stored.risks, context(T2));
    assert.deepEqual(second.upserts, []);
    assert.deepEqual(
      second.fills.map((fill) => fill.id),
      [api.id],
    );
    const [fill] = second.fills;
    assert.equal(
      fill!.content.hash,
      stored.identities.get(api.id)!.content_hash,
      'the hash guards the write',
    );
    assert.match(fill!.content.cachedAccess().accessJson, /^\{"graph":\{"nodes":\[/);
    // a cached row (or one whose flag is absent) is not filled again
    assert.deepEqual(
      planRecompute(compute(objects, T2), stored.identities, stored.risks, context(T2)).fills,
      [],
    );
  });

  test('an identity whose risks are written is written too, even when its times stay the same', () => {
    const first = planRecompute(compute(objects, T1), new Map(), new Map(), context(T1));
    const stored = apply(first, new Map(), new Map(), T1);
    const api = first.upserts.find((upsert) => upsert.identity.name === 'api')!.identity;
    // the same instant again: no detection moves; a risk stored without its text is written again
    const again = planRecompute(compute(objects, T1), stored.identities, stored.risks, context(T1));
    assert.deepEqual(again.touches, [], 'nothing of the identity or its risks changed');
    const textless = new Map(stored.risks);
    textless.set(
      api.id,
      stored.risks.get(api.id)!.map((risk) => ({ ...risk, text_cached: false })),
    );
    const plan = planRecompute(compute(objects, T1), stored.identities, textless, context(T1));
    assert.deepEqual(
      plan.riskUpserts.map((upsert) => upsert.risk.identity_id),
      [api.id],
    );
    assert.deepEqual(plan.touches, [{ id: api.id, last_used_at: T1, last_detected_at: T1 }]);
  });
});
