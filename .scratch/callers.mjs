import { readFileSync } from 'node:fs';
const p = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const target = process.argv[3];
const byId = new Map(p.nodes.map(n => [n.id, n]));
const parent = new Map();
for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const counts = new Map();
for (const s of p.samples) counts.set(s, (counts.get(s) ?? 0) + 1);
const out = new Map();
for (const [id, c] of counts) {
  const n = byId.get(id);
  if (n.callFrame.functionName !== target) continue;
  const chain = [];
  let cur = parent.get(id);
  for (let i = 0; i < 4 && cur !== undefined; i++) { const m = byId.get(cur); chain.push(`${m.callFrame.functionName}@${m.callFrame.url.split('/').slice(-1)}:${m.callFrame.lineNumber}`); cur = parent.get(cur); }
  const k = chain.join(' < ');
  out.set(k, (out.get(k) ?? 0) + c);
}
for (const [k, v] of [...out].sort((a, b) => b[1] - a[1]).slice(0, 10)) console.log(v, k);
