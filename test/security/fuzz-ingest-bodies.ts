/**
 * Valid bodies for the raw-body routes, whose document entry only describes the format: Kubernetes
 * objects (one object, a List or NDJSON watch events), scan reports (CycloneDX, Trivy), runtime
 * events (generated from schemas/runtime-event.schema.json) and an EPSS feed. Names and images come
 * from the populated tenant where it has them, so pushes touch objects that exist.
 */
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { type KnownValues, schemaValue } from './fuzz-schema.js';
import type { JsonSchema, Operation } from './openapi-operations.js';

const RUNTIME_EVENT: JsonSchema = JSON.parse(
  readFileSync(new URL('../../schemas/runtime-event.schema.json', import.meta.url), 'utf8'),
);

export interface RawBody {
  payload: string;
  contentType: string;
}

const dnsName = fc.stringMatching(/^[a-z0-9]([-a-z0-9]{0,14}[a-z0-9])?$/);
const hex64 = fc.stringMatching(/^[0-9a-f]{64}$/);
const oneOfKnown = (known: KnownValues, field: string, fallback: fc.Arbitrary<string>) => {
  const values = known(field).slice(0, 50);
  return values.length > 0 ? fc.oneof(fc.constantFrom(...values), fallback) : fallback;
};

function kubernetesObject(known: KnownValues): fc.Arbitrary<Record<string, unknown>> {
  return fc
    .record({
      kind: fc.constantFrom('Pod', 'Deployment', 'ConfigMap', 'ServiceAccount', 'Role', 'ClusterRoleBinding'),
      name: oneOfKnown(known, 'name', dnsName),
      namespace: oneOfKnown(known, 'namespace', dnsName),
      uid: fc.uuid(),
      resourceVersion: fc.nat({ max: 1_000_000 }).map(String),
      image: oneOfKnown(known, 'image_name', fc.constantFrom('nginx:1.27.2', 'busybox', 'redis@sha256:00')),
      verbs: fc.subarray(['get', 'list', 'create', '*', 'escalate', 'impersonate'], { minLength: 1 }),
    })
    .map(({ kind, name, namespace, uid, resourceVersion, image, verbs }) => {
      const metadata = { name, namespace, uid, resourceVersion };
      const containers = [{ name: 'app', image }];
      switch (kind) {
        case 'Pod':
          return { apiVersion: 'v1', kind, metadata, spec: { containers } };
        case 'Deployment':
          return { apiVersion: 'apps/v1', kind, metadata, spec: { template: { spec: { containers } } } };
        case 'Role':
          return {
            apiVersion: 'rbac.authorization.k8s.io/v1',
            kind,
            metadata,
            rules: [{ apiGroups: [''], resources: ['secrets', 'pods/exec'], verbs }],
          };
        case 'ClusterRoleBinding':
          return {
            apiVersion: 'rbac.authorization.k8s.io/v1',
            kind,
            metadata: { name, uid, resourceVersion },
            roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
            subjects: [{ kind: 'ServiceAccount', name, namespace }],
          };
        default:
          return { apiVersion: 'v1', kind, metadata, data: { key: name } };
      }
    });
}

function kubernetesPush(known: KnownValues): fc.Arbitrary<RawBody> {
  const objects = fc.array(kubernetesObject(known), { minLength: 1, maxLength: 3 });
  return fc
    .oneof(
      kubernetesObject(known).map((object) => JSON.stringify(object)),
      objects.map((items) => JSON.stringify({ apiVersion: 'v1', kind: 'List', items })),
      fc
        .array(fc.tuple(fc.constantFrom('ADDED', 'MODIFIED', 'DELETED'), kubernetesObject(known)), {
          minLength: 1,
          maxLength: 3,
        })
        .map((events) => events.map(([type, object]) => JSON.stringify({ type, object })).join('\n')),
    )
    .map((payload) => ({ payload, contentType: 'application/json' }));
}

const severity = fc.constantFrom('critical', 'high', 'medium', 'low', 'negligible', 'unknown');

function scanReport(known: KnownValues): fc.Arbitrary<RawBody> {
  const finding = fc.record({
    cve: fc.integer({ min: 1, max: 99_999 }).map((n) => `CVE-2024-${String(n).padStart(4, '0')}`),
    name: oneOfKnown(known, 'package_name', fc.constantFrom('openssl', 'zlib', 'busybox')),
    version: fc.constantFrom('1.0.0', '3.0.2-0ubuntu1', '1:2.3'),
    fixed: fc.option(fc.constant('9.9.9'), { nil: undefined }),
    severity,
  });
  const image = oneOfKnown(known, 'image_name', fc.constant('nginx:1.27.2'));
  const cyclonedx = fc
    .record({ image, digest: hex64, findings: fc.array(finding, { maxLength: 3 }) })
    .map(({ image, digest, findings }) => ({
      bomFormat: 'CycloneDX',
      specVersion: '1.5',
      metadata: { component: { type: 'container', name: image, version: `sha256:${digest}` } },
      components: findings.map((f, i) => ({
        'bom-ref': `c${i}`,
        type: 'library',
        name: f.name,
        version: f.version,
      })),
      vulnerabilities: findings.map((f, i) => ({
        id: f.cve,
        ratings: [{ severity: f.severity }],
        affects: [{ ref: `c${i}` }],
      })),
    }));
  const trivy = fc
    .record({ image, digest: hex64, findings: fc.array(finding, { maxLength: 3 }) })
    .map(({ image, digest, findings }) => ({
      SchemaVersion: 2,
      ArtifactName: image,
      ArtifactType: 'container_image',
      Metadata: { RepoDigests: [`${image.split(':')[0]}@sha256:${digest}`] },
      Results: [
        {
          Target: image,
          Class: 'os-pkgs',
          Type: 'debian',
          Vulnerabilities: findings.map((f) => ({
            VulnerabilityID: f.cve,
            PkgName: f.name,
            InstalledVersion: f.version,
            FixedVersion: f.fixed,
            Severity: f.severity.toUpperCase(),
          })),
        },
      ],
    }));
  return fc
    .oneof(cyclonedx, trivy)
    .map((report) => ({ payload: JSON.stringify(report), contentType: 'application/json' }));
}

function runtimeEvents(known: KnownValues): fc.Arbitrary<RawBody> {
  // Container ids of the inventory, as the runtime sees them, so events land on known workloads.
  const containerIds = known('container_id').map((id) => `containerd://${id}`);
  const forEvents: KnownValues = (field) => {
    if (field === 'id') return containerIds;
    if (field === 'pod') return known('pod_name');
    return known(field);
  };
  return fc.array(schemaValue(RUNTIME_EVENT, forEvents), { minLength: 1, maxLength: 4 }).map((events) => ({
    payload: events.map((event) => JSON.stringify(event)).join('\n'),
    contentType: 'application/x-ndjson',
  }));
}

const epssFeed: fc.Arbitrary<RawBody> = fc
  .array(fc.tuple(fc.integer({ min: 1, max: 9999 }), fc.double({ min: 0, max: 1, noNaN: true })), {
    minLength: 1,
    maxLength: 3,
  })
  .map((rows) => ({
    payload: `cve,epss,percentile\n${rows.map(([n, p]) => `CVE-2024-${n},${p},${p}`).join('\n')}\n`,
    contentType: 'text/csv',
  }));

/** A valid raw body for `op`, or undefined when its body is plain JSON (generated from its schema). */
export function rawBodyOf(op: Operation, known: KnownValues): fc.Arbitrary<RawBody> | undefined {
  if (op.path.endsWith('/ingest/kubernetes')) return kubernetesPush(known);
  if (op.path.endsWith('/ingest/vulnerabilities')) return scanReport(known);
  if (op.path.endsWith('/ingest/runtime')) return runtimeEvents(known);
  if (op.path === '/feeds/import') return epssFeed;
  return undefined;
}

/** The raw-body routes: their body limit is the ingestion one (64 MiB), and gzip is accepted. */
export const isRawBodyRoute = (op: Operation): boolean => /\/ingest\/[a-z]+$|^\/feeds\/import$/.test(op.path);
