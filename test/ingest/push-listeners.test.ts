/**
 * The extension point for engines that derive from cluster resources: listeners run inside the
 * push's transaction, see what changed, and a failing listener leaves nothing of the push.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { scopeOfActor, withScope, withSystemScope } from '../../src/db/scope.js';
import {
  type AppliedKubernetesPush,
  createKubernetesIngestService,
} from '../../src/modules/clusters/ingest-service.js';
import { createTenant, startTestApp, type TestApp } from '../support/harness.js';
import { createCluster, sampleObject, sampleText } from './sample.js';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

test('listeners see the changed objects inside the transaction; a failing one rolls the push back', async () => {
  const tenant = await createTenant(t);
  const cluster = await createCluster(t, tenant.adminToken, tenant.accountId, 'listened');
  // Called as a request would be: the session looked up in the system scope, the push in the
  // caller's (row-level security binds the app's connection on PostgreSQL, src/db/scope.ts).
  const actor = await withSystemScope(() => t.app.services.auth.actorForToken(tenant.adminToken));
  const asCaller = <T>(work: () => Promise<T>) => withScope(scopeOfActor(actor), work);
  const seen: { push: AppliedKubernetesPush; storedDuring: number }[] = [];
  let fail = false;
  const service = createKubernetesIngestService({
    db: t.db,
    clusters: t.app.services.clusters,
    listeners: [
      async (tx, push) => {
        const { rows } = await tx.query<{ n: number }>(
          'select count(*) as n from cluster_resources where account_id = $1 and cluster_id = $2',
          [push.accountId, push.clusterId],
        );
        seen.push({ push, storedDuring: rows[0]?.n ?? 0 });
        if (fail) throw new Error('engine failed');
      },
    ],
  });
  const request = { accountId: tenant.accountId, clusterId: cluster.id, mode: 'incremental' as const };

  await asCaller(() =>
    service.ingest(actor, { ...request, body: Buffer.from(sampleText('01-cluster.json')) }),
  );
  assert.equal(seen.length, 1);
  assert.equal(seen[0]?.storedDuring, 10, 'the listener reads the records of its own push');
  assert.equal(seen[0]?.push.changed.length, 10);
  assert.deepEqual(seen[0]?.push.pushedKinds.sort(), ['Namespace', 'Node']);
  assert.equal(seen[0]?.push.clusterName, 'listened');

  await asCaller(() =>
    service.ingest(actor, { ...request, body: Buffer.from(sampleText('01-cluster.json')) }),
  );
  assert.deepEqual(seen[1]?.push.changed, [], 'an unchanged push changes nothing');

  fail = true;
  const pod = sampleObject('Pod', 'payments', 'debug-shell');
  await assert.rejects(
    asCaller(() => service.ingest(actor, { ...request, body: Buffer.from(JSON.stringify(pod)) })),
    /engine failed/,
  );
  assert.deepEqual(seen[2]?.push.changed, [{ uid: pod.metadata.uid, kind: 'Pod' }]);
  const { rows } = await t.db.query<{ n: number }>(
    'select count(*) as n from cluster_resources where cluster_id = $1',
    [cluster.id],
  );
  assert.equal(rows[0]?.n, 10, 'nothing of the failed push was kept');
});
