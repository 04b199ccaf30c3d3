/**
 * How long computing identities takes for a large cluster (issue 5: 2,000 ServiceAccounts and
 * 5,000 bindings). Run: `npx tsx bench/rbac-identities.ts [serviceAccounts] [bindings]`.
 * Prints one JSON line: wall and CPU milliseconds per computation (median of 7 after a warm-up;
 * CPU time includes the garbage collector's threads). On a busy machine trust the CPU figure.
 * The result is recorded in docs/identity-risk.md.
 */
import { syntheticCluster } from '../src/engines/rbac/fixtures/synthetic.js';
import { computeIdentities } from '../src/engines/rbac/index.js';

const serviceAccounts = Number(process.argv[2] ?? 2000);
const bindings = Number(process.argv[3] ?? 5000);
const objects = syntheticCluster({ serviceAccounts, bindings, namespaces: 50 });
const input = { clusterId: 'bench', clusterName: 'bench', objects, now: '2025-01-01T00:00:00Z' };

computeIdentities(input); // warm-up: JIT and module caches
const wall: number[] = [];
const cpu: number[] = [];
let result = computeIdentities(input);
for (let i = 0; i < 7; i++) {
  const cpuStart = process.cpuUsage();
  const start = process.hrtime.bigint();
  result = computeIdentities(input);
  wall.push(Number(process.hrtime.bigint() - start) / 1e6);
  const used = process.cpuUsage(cpuStart);
  cpu.push((used.user + used.system) / 1000);
}
const median = (values: number[]) =>
  Math.round([...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!);
const risks = result.identities.reduce((sum, identity) => sum + identity.risks.length, 0);
console.log(
  JSON.stringify({
    node: process.version,
    objects: objects.length,
    serviceAccounts,
    bindings,
    identities: result.identities.length,
    risks,
    wall_median_ms: median(wall),
    wall_min_ms: Math.round(Math.min(...wall)),
    cpu_median_ms: median(cpu),
    output_json_mb: Math.round(JSON.stringify(result.identities).length / 1e5) / 10,
  }),
);
