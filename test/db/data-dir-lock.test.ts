import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { testConfig } from '../../src/config.js';
import { DataDirLockedError } from '../../src/db/data-dir-lock.js';
import { openDatabase } from '../../src/db/database.js';
import { migrate } from '../../src/db/migrator.js';

const quiet = { warn() {}, error() {} };

test('an embedded data directory is locked against a second opener and kept across restarts', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'posture-lock-'));
  const config = testConfig({ DATA_DIR: join(dir, 'data'), DATABASE_URL: undefined });
  try {
    const first = await openDatabase(config, quiet);
    await migrate(first);
    await first.query(
      `insert into tenants (id, name) values ('00000000-0000-4000-8000-000000000001', 'kept')`,
    );
    await assert.rejects(openDatabase(config, quiet), DataDirLockedError);
    await first.close();

    const second = await openDatabase(config, quiet); // the lock is released on close
    const { rows } = await second.query<{ name: string }>('select name from tenants');
    assert.deepEqual(
      rows.map((row) => row.name),
      ['kept'],
    );
    await second.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a lock left by a crashed process is taken over at once', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'posture-lock-'));
  const dataDir = join(dir, 'data');
  try {
    // What kill -9 leaves behind: the lock directory, naming a pid that no longer runs.
    mkdirSync(`${dataDir}.lock`, { recursive: true });
    writeFileSync(`${dataDir}.lock.pid`, '2147483646');
    const db = await openDatabase(testConfig({ DATA_DIR: dataDir, DATABASE_URL: undefined }), quiet);
    await db.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
