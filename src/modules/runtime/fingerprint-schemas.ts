/**
 * The description's Fingerprint shape (baseline or ongoing activity of a workload container). A
 * process holds its children, so the process schema is recursive: it is registered once as a
 * shared schema (`registerFingerprintSchemas`) and referenced by id, which the OpenAPI document
 * turns into one component.
 */
import { Type } from 'typebox';
import type { Api } from '../../http/api.js';
import { Timestamp } from '../../http/schemas.js';

export const FINGERPRINT_PROCESS_ID = 'RuntimeFingerprintProcess';

const ProcessRef = Type.Ref(FINGERPRINT_PROCESS_ID);

const Drift = Type.Boolean({ description: 'not covered by the baseline (always false in a baseline)' });

export const FingerprintProcessSchema = Type.Object(
  {
    children: Type.Array(ProcessRef, { description: 'processes started by this one' }),
    connections: Type.Array(
      Type.Object({
        address: Type.String(),
        drift: Drift,
        hostname: Type.String(),
        k8sName: Type.String(),
        k8sNamespace: Type.String(),
        port: Type.Integer(),
        timestamp: Timestamp,
        trustedCIDR: Type.String({ description: "the account's trusted prefix holding the address, or ''" }),
      }),
    ),
    drift: Drift,
    files: Type.Array(Type.Object({ drift: Drift, path: Type.String(), timestamp: Timestamp })),
    gid: Type.Integer(),
    id: Type.String({ description: 'derived from the lineage: the same in the baseline and ongoing' }),
    parentId: Type.String({ description: "'' for a top-level process" }),
    programs: Type.Array(
      Type.Object({
        args: Type.Array(Type.String(), { description: 'the arguments, or their pattern' }),
        comm: Type.String(),
        drift: Drift,
        hasPattern: Type.Boolean({ description: 'args is a pattern of varying argument lists' }),
        sampleArgs: Type.Array(Type.Array(Type.String())),
        timestamp: Timestamp,
      }),
    ),
    repetition: Type.Object({ execCount: Type.Integer(), recentTimestamp: Timestamp }),
    timestamp: Timestamp,
    trustedIPPrefixes: Type.Array(
      Type.Object({ cidr: Type.String(), name: Type.String(), port: Type.Integer() }),
    ),
    uid: Type.Integer(),
  },
  { $id: FINGERPRINT_PROCESS_ID, title: FINGERPRINT_PROCESS_ID },
);

export const FingerprintSchema = Type.Object({
  apiVersion: Type.String(),
  kind: Type.String(),
  metadata: Type.Object({ creationTimestamp: Timestamp }),
  containers: Type.Array(
    Type.Object({
      id: Type.String({ description: 'the container id, as inventory_containers.container_id' }),
      imageDigest: Type.String(),
      imageName: Type.String(),
      name: Type.String(),
      processes: Type.Array(ProcessRef),
    }),
  ),
});

/** Adds the shared process schema; call once, on the instance the runtime read routes live on. */
export function registerFingerprintSchemas(app: Api): void {
  app.addSchema(FingerprintProcessSchema);
}

export const childrenLimitQuery = Type.Integer({
  minimum: 0,
  maximum: 1000,
  description:
    'processes kept per level of the process tree, top level included: drifted ones first, then ' +
    'the most recently run; default: all',
});
