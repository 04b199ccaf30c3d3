import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseRuntimeEvents } from './parse-events.js';
import { connect, exec, httpRequest, ndjson, open, T0 } from './testing.js';

const falcoAlert = {
  rule: 'Terminal shell in container',
  priority: 'Notice',
  time: '2025-01-01T00:00:05.123456789Z',
  tags: ['container', 'shell', 'mitre_execution', 'T1059'],
  output_fields: {
    'evt.type': 'execve',
    'container.id': 'abababababab',
    'container.name': 'app',
    'k8s.ns.name': 'shop',
    'k8s.pod.name': 'web-7c9d8f6b5d-k2x8p',
    'proc.name': 'bash',
    'proc.pid': 77,
    'proc.ppid': 1,
  },
};

function problem(body: string | Buffer) {
  const result = parseRuntimeEvents(body);
  assert.equal(result.ok, false, 'the push should be refused');
  return (result as Extract<typeof result, { ok: false }>).error;
}

describe('parseRuntimeEvents', () => {
  test('reads every event type and detects Falco alerts per line', () => {
    const body = ndjson([
      exec(T0, 1, 0, 'node'),
      open(T0, 1, 'node', '/etc/hosts'),
      falcoAlert,
      connect(T0, 1, 'node', '10.0.0.1', 80),
    ]);
    const result = parseRuntimeEvents(`${body}\n${JSON.stringify(httpRequest(T0, '/a'))}\n`);
    assert.ok(result.ok);
    assert.deepEqual(
      result.events.map((e) => e.type),
      ['process_exec', 'file_open', 'process_exec', 'network_connect', 'http_request'],
    );
    assert.deepEqual(result.formats, { native: 4, falco: 1 });
    assert.equal(result.events[2]?.alert?.rule, 'Terminal shell in container');
    // nanoseconds and offsets come out as RFC 3339 UTC with milliseconds
    assert.equal(result.events[2]?.timestamp, '2025-01-01T00:00:05.123Z');
  });

  test('the first bad line is reported by its 1-based number, counting blank lines', () => {
    const lines = [
      ndjson([exec(T0, 1, 0, 'node')]),
      '',
      '   ',
      '{"type":"process_exec"',
      ndjson([exec(T0, 2, 1, 'x')]),
    ];
    const error = problem(lines.join('\n'));
    assert.equal(error.line, 4);
    assert.equal(error.field, 'line');
    assert.match(error.message, /not valid JSON/);
  });

  test('CRLF line ends and a byte-order mark are accepted; only the first bad line is reported', () => {
    const good = JSON.stringify(exec(T0, 1, 0, 'node'));
    assert.ok(parseRuntimeEvents(`\ufeff${good}\r\n${good}\r\n`).ok);
    const bad = {
      ...exec(T0, 1, 0, 'node'),
      process: { pid: -1, ppid: 0, comm: 'x', args: [], uid: 0, gid: 0 },
    };
    const error = problem(`${good}\r\n${JSON.stringify(bad)}\r\n[]\r\n`);
    assert.deepEqual([error.line, error.field, error.code], [2, 'process.pid', 'out_of_range']);
  });

  test('names the missing field, the unknown field and the wrong type', () => {
    const missing = exec(T0, 1, 0, 'node') as unknown as { process: Record<string, unknown> };
    delete missing.process.uid;
    assert.deepEqual(pick(problem(JSON.stringify(missing))), [1, 'process.uid', 'required', 'is required']);
    const unknown = { ...exec(T0, 1, 0, 'node'), severity: 'high' };
    assert.deepEqual(pick(problem(JSON.stringify(unknown))), [
      1,
      'severity',
      'unknown_field',
      'is not a known field',
    ]);
    const wrongType = {
      ...open(T0, 1, 'cat', '/etc/hosts'),
      file: { path: '/etc/hosts', flags: 'O_RDONLY' },
    };
    assert.deepEqual(pick(problem(JSON.stringify(wrongType))).slice(0, 3), [1, 'file.flags', 'invalid_type']);
  });

  test('refuses lines that are no object, an unknown type, and values JSON Schema lets through', () => {
    assert.equal(problem('42').code, 'invalid_type');
    const unknownType = problem(JSON.stringify({ ...exec(T0, 1, 0, 'x'), type: 'process_fork' }));
    assert.equal(unknownType.field, 'type');
    assert.match(unknownType.message, /process_exec, file_open, network_connect, http_request/);
    assert.equal(problem(JSON.stringify({ hello: 'world' })).code, 'required');
    const badAddress = problem(JSON.stringify(connect(T0, 1, 'x', '300.1.1.1', 80)));
    assert.deepEqual([badAddress.field, badAddress.code], ['connection.address', 'invalid_format']);
    const badTime = problem(JSON.stringify({ ...exec(T0, 1, 0, 'x'), timestamp: '2025-01-01 00:00:00' }));
    assert.equal(badTime.field, 'timestamp');
    const badScheme = problem(JSON.stringify(httpRequest(T0, '/a', { scheme: 'ftp' })));
    assert.deepEqual([badScheme.field, badScheme.message], ['http.scheme', 'must be one of: http, https']);
  });

  test('invalid UTF-8 is reported on its line', () => {
    const good = Buffer.from(`${JSON.stringify(exec(T0, 1, 0, 'node'))}\n`);
    const bad = Buffer.concat([good, Buffer.from([0x7b, 0xff, 0xfe, 0x7d, 0x0a])]);
    assert.deepEqual(pick(problem(bad)), [2, 'line', 'invalid_format', 'is not valid UTF-8']);
  });

  test('keeps only the headers of interest and never the credential of an Authorization header', () => {
    const event = httpRequest(T0, '/a', {
      headers: {
        authorization: 'Bearer eyJhbGciOiJIUzI1NiJ9.secret',
        cookie: 'session=abc',
        'user-agent': 'curl/8',
      },
    });
    const result = parseRuntimeEvents(JSON.stringify(event));
    assert.ok(result.ok);
    const http = (result.events[0] as Extract<(typeof result.events)[0], { type: 'http_request' }>).http;
    assert.deepEqual(http.headers, { authorization: 'Bearer', 'user-agent': 'curl/8' });
  });

  test('Falco alerts about the host are skipped, a broken one is refused with its line', () => {
    const host = { ...falcoAlert, output_fields: { ...falcoAlert.output_fields, 'container.id': 'host' } };
    const noPod = { ...falcoAlert, output_fields: { 'container.id': 'abababababab', 'proc.name': 'x' } };
    const result = parseRuntimeEvents(ndjson([host, noPod, falcoAlert]));
    assert.ok(result.ok);
    assert.equal(result.events.length, 1);
    assert.deepEqual(
      result.skipped.map((s) => s.line),
      [1, 2],
    );
    const badPriority = { ...falcoAlert, time: 'soon' };
    assert.deepEqual(pick(problem(ndjson([falcoAlert, badPriority]))).slice(0, 2), [2, 'time']);
    const badMapping = {
      ...falcoAlert,
      output_fields: { ...falcoAlert.output_fields, 'evt.type': 'connect', 'fd.rip': 'nope' },
    };
    const error = problem(JSON.stringify(badMapping));
    assert.equal(error.field, 'output_fields');
    assert.match(
      error.message,
      /network_connect event whose connection.address must be an IPv4 or IPv6 address/,
    );
  });
});

function pick(error: { line: number; field: string; code: string; message: string }) {
  return [error.line, error.field, error.code, error.message];
}
