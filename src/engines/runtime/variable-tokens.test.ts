import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { normalizeArg, normalizeFilePath } from './variable-tokens.js';

describe('normalizeArg', () => {
  test('replaces values that vary between runs', () => {
    const cases: [string, string][] = [
      ['30', '{num}'],
      ['2.5', '{num}'],
      ['10s', '{num}'],
      ['3f1c9a4e-7b2d-4c8e-9a1f-0d2e3c4b5a69', '{uuid}'],
      ['9fceb02d0ae598e95dc970b74767f19372d61af8', '{hex}'],
      ['0x7ffd1234', '{hex}'],
      ['2025-03-03T10:42:11Z', '{time}'],
      ['2025-03-03', '{time}'],
      ['10.244.1.17:8080', '{ip}'],
      ['--request-id=3f1c9a4e-7b2d-4c8e-9a1f-0d2e3c4b5a69', '--request-id={uuid}'],
      ['--port=8080', '--port={num}'],
      ['http://10.0.0.1:8080/orders/42?x=7', 'http://{ip}:{num}/orders/{num}?x={num}'],
      ['/proc/4242/status', '/proc/{num}/status'],
      ['/tmp/tmp.Xa81kq/out.json', '/tmp/{tmp}'],
      ['/dev/shm/x', '/dev/shm/{tmp}'],
      ['eyJhbGciOiJIUzI1NiJ9eyJzdWIiOjEyMzQ1Njc4OTB9', '{token}'],
      ['web-7c9d8f6b5d-k2x8p', '{token}'],
    ];
    for (const [input, expected] of cases) assert.equal(normalizeArg(input), expected, input);
  });

  test('leaves fixed text alone', () => {
    for (const fixed of [
      '-c',
      '-9',
      'daemon off;',
      'nginx -t',
      'cat /etc/shadow',
      '/etc/nginx/nginx.conf',
      'python3',
      '1.25.3',
      'deadbeef',
      'python3.11-dist-packages-2024',
      '/tmp',
      '',
    ]) {
      assert.equal(normalizeArg(fixed), fixed, fixed);
    }
  });
});

describe('normalizeFilePath', () => {
  test('collapses varying segments and temporary files, keeps the rest', () => {
    assert.equal(normalizeFilePath('/proc/4242/fd/7'), '/proc/{num}/fd/{num}');
    assert.equal(
      normalizeFilePath('/var/cache/nginx/proxy_temp/5/05/0000000005'),
      '/var/cache/nginx/proxy_temp/{num}/{num}/{num}',
    );
    assert.equal(normalizeFilePath('/tmp/cache-1234.json'), '/tmp/{tmp}');
    assert.equal(normalizeFilePath('/var/tmp/a/b'), '/var/tmp/{tmp}');
    assert.equal(normalizeFilePath('/app/data/7/part-0042.bin'), '/app/data/{num}/part-{num}.bin');
    assert.equal(normalizeFilePath('/var/log/app.log.3'), '/var/log/app.log.{num}');
    assert.equal(normalizeFilePath('/usr/lib/libssl.so.3'), '/usr/lib/libssl.so.{num}');
    assert.equal(
      normalizeFilePath('/etc/rc3.d/S01x'),
      '/etc/rc3.d/S01x',
      'digits inside a word are part of the name',
    );
    assert.equal(normalizeFilePath('/etc/nginx/conf.d/default.conf'), '/etc/nginx/conf.d/default.conf');
    assert.equal(
      normalizeFilePath('/var/run/secrets/kubernetes.io/serviceaccount/token'),
      '/var/run/secrets/kubernetes.io/serviceaccount/token',
    );
  });
});
