import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildApp } from '../../src/app.js';
import { testConfig } from '../../src/config.js';
import type { Database } from '../../src/db/database.js';
import { createTestDatabase } from '../support/database.js';
import { TEST_PEPPER } from '../support/harness.js';

test('/readyz answers 503 unavailable while the database does not, and 200 once it does', async () => {
  const database = await createTestDatabase();
  let down = true;
  const flaky: Database = {
    ...database.db,
    ping: () =>
      down
        ? Promise.reject(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }))
        : database.db.ping(),
  };
  const app = await buildApp({
    config: testConfig({ DATABASE_URL: database.url }),
    db: flaky,
    pepper: TEST_PEPPER,
  });
  try {
    const unavailable = await app.inject({ url: '/readyz' });
    assert.equal(unavailable.statusCode, 503);
    assert.equal(unavailable.json().code, 'unavailable');
    assert.equal(unavailable.json().request_id, unavailable.headers['x-request-id']);
    down = false;
    const ready = await app.inject({ url: '/readyz' });
    assert.equal(ready.statusCode, 200);
    assert.equal((await app.inject({ url: '/healthz' })).statusCode, 200);
  } finally {
    await app.close();
    await database.close();
  }
});

test('a database connection failure inside a request is a 503 unavailable, not a 500', async () => {
  const database = await createTestDatabase();
  const broken: Database = {
    ...database.db,
    query: () => Promise.reject(Object.assign(new Error('Connection terminated unexpectedly'), {})),
  };
  const app = await buildApp({
    config: testConfig({ DATABASE_URL: database.url }),
    db: broken,
    pepper: TEST_PEPPER,
  });
  try {
    const res = await app.inject({ url: '/accounts', headers: { authorization: 'Bearer pst_anything' } });
    assert.equal(res.statusCode, 503);
    assert.equal(res.json().code, 'unavailable');
  } finally {
    await app.close();
    await database.close();
  }
});
