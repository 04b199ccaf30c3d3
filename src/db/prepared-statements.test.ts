import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PreparedStatements } from './prepared-statements.js';

test('a statement is parsed the first time only, under the name it keeps', () => {
  const session = new PreparedStatements(10);
  const first = session.use('select 1');
  assert.equal(first.parse, true);
  assert.deepEqual(session.use('select 1'), { name: first.name, parse: false });
  assert.notEqual(session.use('select 2').name, first.name);
  assert.deepEqual(session.takeClosing(), []);
});

test('past its capacity the least recently used statement is closed, once', () => {
  const session = new PreparedStatements(2);
  const a = session.use('a');
  const b = session.use('b');
  session.use('a'); // a is now more recent than b
  session.use('c');
  assert.equal(session.size, 2);
  assert.deepEqual(session.takeClosing(), [b.name]);
  assert.deepEqual(session.takeClosing(), []);
  assert.deepEqual(session.use('a'), { name: a.name, parse: false });
  assert.equal(session.use('b').parse, true);
});

test('forgotten statements are closed and parsed again under new names', () => {
  const session = new PreparedStatements(10);
  const a = session.use('a');
  const b = session.use('b');
  session.forget([a.name]);
  assert.deepEqual(session.takeClosing(), [a.name]);
  const again = session.use('a');
  assert.equal(again.parse, true);
  assert.notEqual(again.name, a.name);
  assert.deepEqual(session.use('b'), { name: b.name, parse: false });
});

test('a session of capacity 0 names nothing and keeps nothing', () => {
  const session = new PreparedStatements(0);
  assert.deepEqual(session.use('a'), { name: '', parse: true });
  assert.deepEqual(session.use('a'), { name: '', parse: true });
  assert.equal(session.size, 0);
  assert.deepEqual(session.takeClosing(), []);
});
