import { readFileSync } from 'node:fs';
const p = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const byId = new Map(p.nodes.map(n => [n.id, n]));
const self = new Map();
const counts = new Map();
for (const s of p.samples) counts.set(s, (counts.get(s) ?? 0) + 1);
let total = 0;
const parent = new Map();
for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const incl = new Map();
for (const [id, c] of counts) {
  total += c;
  const n = byId.get(id);
  const key = `${n.callFrame.functionName || '(anon)'} ${n.callFrame.url.split('/').slice(-2).join('/')}:${n.callFrame.lineNumber}`;
  self.set(key, (self.get(key) ?? 0) + c);
  const seen = new Set();
  let cur = id;
  while (cur !== undefined) {
    const m = byId.get(cur);
    const k = `${m.callFrame.functionName || '(anon)'} ${m.callFrame.url.split('/').slice(-2).join('/')}:${m.callFrame.lineNumber}`;
    if (!seen.has(k)) { seen.add(k); incl.set(k, (incl.get(k) ?? 0) + c); }
    cur = parent.get(cur);
  }
}
const top = (m, n) => [...m].sort((a, b) => b[1] - a[1]).slice(0, n).map(([k, v]) => `${(100*v/total).toFixed(1).padStart(5)}% ${k}`).join('\n');
console.log('total samples', total);
console.log('--- self'); console.log(top(self, +(process.argv[3] ?? 40)));
console.log('--- inclusive'); console.log(top(incl, +(process.argv[4] ?? 60)));
