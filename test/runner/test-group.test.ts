// `npm test` runs most test files a few to a process (scripts/test.mjs, scripts/test-group.mjs).
// Sharing a process must not let a file's failure go unreported or its hooks run at another
// file's turn: these run a group of small files through Node's test runner, from the entry
// module npm test writes.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { entryModule } from '../../scripts/test-group.mjs';

const dir = mkdtempSync(join(tmpdir(), 'posture-test-group-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** A test file whose hooks and first test write their turn to stderr. */
function orderedFile(name: string, failing = false): string {
  return `import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
before(async () => { await sleep(20); process.stderr.write('${name} before\\n'); });
after(async () => { await sleep(20); process.stderr.write('${name} after\\n'); });
test('${name} 1', async () => { await sleep(20); process.stderr.write('${name} 1\\n'); });
test('${name} 2', async () => { await sleep(20); assert.equal(${failing ? 1 : 2}, 2); });
`;
}

function runGroup(files: Record<string, string>) {
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  const entry = join(dir, 'entry.test.mjs');
  writeFileSync(entry, entryModule(dir, Object.keys(files)));
  // Without NODE_TEST_CONTEXT, which tells a process it is a test runner's child: this one is a runner.
  const { NODE_TEST_CONTEXT: _, ...env } = process.env;
  const run = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-reporter=tap', entry], {
    encoding: 'utf8',
    env,
  });
  // what the files wrote to stderr, which the runner reports as TAP comments, in order
  const order = [...run.stdout.matchAll(/^# (\w+ (?:before|1|after))$/gm)].map((match) => match[1]);
  return { status: run.status, stdout: run.stdout, order };
}

test("each file's hooks run at its own turn, around its own tests", () => {
  const run = runGroup({ 'a.test.ts': orderedFile('a'), 'b.test.ts': orderedFile('b') });
  assert.equal(run.status, 0, run.stdout);
  assert.deepEqual(run.order, ['a before', 'a 1', 'a after', 'b before', 'b 1', 'b after']);
  // the report names each file
  assert.match(run.stdout, /^ok 1 - a\.test\.ts$/m);
  assert.match(run.stdout, /^ok 2 - b\.test\.ts$/m);
});

test('a failing test, a file that does not compile and one that throws on import all fail the run', () => {
  const run = runGroup({
    'failing.test.ts': orderedFile('failing', true),
    'broken.test.ts': 'const x: number = ;\n',
    'throws.test.ts': "throw new Error('thrown on import');\n",
    'passing.test.ts': orderedFile('passing'),
  });
  assert.equal(run.status, 1);
  assert.match(run.stdout, /^not ok 1 - failing\.test\.ts$/m);
  assert.match(run.stdout, /^not ok 2 - broken\.test\.ts$/m);
  assert.match(run.stdout, /^not ok 3 - throws\.test\.ts$/m);
  assert.match(run.stdout, /thrown on import/);
  // the files after them still run
  assert.match(run.stdout, /^ok 4 - passing\.test\.ts$/m);
  assert.match(run.stdout, /^# fail 3$/m);
});
