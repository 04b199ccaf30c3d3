import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { mergeHttpObservations, observeHttpRequests } from './http-observations.js';
import { createPrefixMatcher, isInternalAddress, isIpAddress, parseCidr, parseIp } from './ip.js';
import { templateRequestTarget } from './path-template.js';
import { at, httpRequest } from './testing.js';

describe('path templates', () => {
  const cases: [string, string, string[]][] = [
    ['/users/42', '/users/{id}', []],
    ['/users/42/orders/7f1c2a3b-9d4e-4f5a-8b6c-1d2e3f4a5b6c', '/users/{id}/orders/{id}', []],
    ['/commits/9fceb02d0ae598e95dc970b74767f19372d61af8/files', '/commits/{id}/files', []],
    ['/reports/2025-03-03/summary', '/reports/{date}/summary', []],
    ['/v1/healthz', '/v1/healthz', []],
    ['/', '/', []],
    ['/api/v2/items/', '/api/v2/items/', []],
    ['/users/jane.doe%40example.com/profile', '/users/{email}/profile', ['email']],
    ['/cards/4111111111111111', '/cards/{credit_card}', ['credit_card']],
    ['/search?q=shoes&page=2', '/search?page={value}&q={value}', []],
    ['/search?page=2&q=shoes', '/search?page={value}&q={value}', []],
    ['/lookup?email=jane%40example.com&page=1', '/lookup?email={email}&page={value}', ['email']],
    ['/lookup?contact=jane+doe%40example.com', '/lookup?contact={email}', ['email']],
    [
      '/verify?card=4111-1111-1111-1111&ssn=123-45-6789',
      '/verify?card={credit_card}&ssn={us_ssn}',
      ['credit_card', 'us_ssn'],
    ],
    ['/users?phone=%2B1-415-555-0132', '/users?phone={phone_number}', ['phone_number']],
    ['/cb?access_token=abcdefgh12345', '/cb?access_token={bearer_token}', ['bearer_token']],
    ['/x?jane%40example.com', '/x?{email}', ['email']],
    ['/x?flag&flag', '/x?flag', []],
    ['/x?a=%E0%A4%A', '/x?a={value}', []],
    ['/page#section-4111111111111111', '/page', []],
  ];
  for (const [target, path, labels] of cases) {
    test(`${target} -> ${path}`, () => {
      assert.deepEqual(templateRequestTarget(target), { path, piiLabels: labels });
    });
  }

  test('no matched value survives in the template', () => {
    const secrets = ['jane@example.com', '4111111111111111', '123-45-6789', '415-555-0132', 'abcdefgh12345'];
    const { path } = templateRequestTarget(
      `/u/jane%40example.com?c=4111111111111111&s=123-45-6789&p=415-555-0132&token=abcdefgh12345`,
    );
    for (const secret of secrets)
      assert.ok(!path.includes(secret) && !path.includes(encodeURIComponent(secret)), secret);
  });
});

describe('IP prefixes', () => {
  test('parses IPv4, IPv6, IPv4-mapped IPv6 and refuses the rest', () => {
    assert.deepEqual([...parseIp('10.1.2.3')!], [10, 1, 2, 3]);
    assert.deepEqual([...parseIp('::ffff:10.1.2.3')!], [10, 1, 2, 3]);
    assert.equal(parseIp('2001:db8::1')!.length, 16);
    assert.deepEqual([...parseIp('2001:db8::1')!.slice(0, 4)], [0x20, 0x01, 0x0d, 0xb8]);
    assert.equal(parseIp('fe80::1%eth0')!.length, 16);
    for (const bad of ['10.1.2', '256.1.1.1', 'example.com', '', '1::2::3'])
      assert.equal(parseIp(bad), null, bad);
    for (const bad of ['10.0.0.0/33', '10.0.0.0/8/1', 'fd00::/129', 'x/8', '10.0.0.0/-1'])
      assert.equal(parseCidr(bad), null, bad);
  });

  test('isIpAddress accepts exactly what parseIp reads', () => {
    const ipLike = fc
      .array(fc.constantFrom(...'0123456789abcdefABCDEF.:%[]/ x-'.split('')), { maxLength: 45 })
      .map((chars) => chars.join(''));
    const addresses = fc.oneof(
      fc.ipV4(),
      fc.ipV6(),
      fc.ipV6().map((address) => `[${address}]`),
      fc.ipV6().map((address) => `${address}%eth0`),
      fc.ipV4().map((address) => `::ffff:${address}`),
    );
    fc.assert(
      fc.property(fc.oneof(ipLike, addresses), (text) => {
        assert.equal(isIpAddress(text), parseIp(text) !== null, text);
      }),
      { numRuns: 5000 },
    );
  });

  test('matches the most specific prefix, IPv4 and IPv6, and nothing across families', () => {
    const matcher = createPrefixMatcher([
      { cidr: '10.0.0.0/8', name: 'cluster' },
      { cidr: '10.96.0.0/12', name: 'services' },
      { cidr: '192.0.2.128/25', name: 'partner' },
      { cidr: '2001:db8:1::/48', name: 'v6 partner' },
      { cidr: 'garbage', name: 'ignored' },
    ]);
    assert.equal(matcher.match('10.96.12.40')?.name, 'services');
    assert.equal(matcher.match('10.244.1.7')?.name, 'cluster');
    assert.equal(matcher.match('::ffff:10.244.1.7')?.name, 'cluster');
    assert.equal(matcher.match('192.0.2.200')?.name, 'partner');
    assert.equal(matcher.match('192.0.2.127'), null, 'just below the /25');
    assert.equal(matcher.match('2001:db8:1:ffff::9')?.name, 'v6 partner');
    assert.equal(matcher.match('2001:db8:2::9'), null);
    assert.equal(matcher.match('not an ip'), null);
  });

  test('internal addresses', () => {
    for (const internal of [
      '10.1.1.1',
      '172.31.255.255',
      '192.168.0.1',
      '127.0.0.1',
      '100.64.3.3',
      'fd12::1',
      '::1',
      'fe80::7',
    ]) {
      assert.ok(isInternalAddress(internal), internal);
    }
    for (const external of ['172.32.0.1', '8.8.8.8', '203.0.113.45', '2001:4860:4860::8888'])
      assert.ok(!isInternalAddress(external), external);
  });
});

describe('HTTP request observations', () => {
  const trustedPrefixes = [
    { cidr: '10.96.0.0/12', name: 'services', description: 'Service network' },
    { cidr: '2001:db8::/32', name: 'v6 partner' },
  ];

  test('aggregate per source, destination, method and template, with first and last seen', () => {
    const observations = observeHttpRequests(
      [
        httpRequest(at(30), '/users/42'),
        httpRequest(at(10), '/users/7'),
        httpRequest(at(20), '/users/7', { method: 'DELETE' }),
        httpRequest(at(40), '/users/9?email=jane%40example.com'),
        httpRequest(at(50), '/users/9?email=max%40example.org'),
      ],
      { clusterId: 'c1', trustedPrefixes },
    );
    assert.equal(observations.length, 3);
    const get = observations.find((o) => o.method === 'GET' && o.path === '/users/{id}')!;
    assert.deepEqual(
      [get.first_seen_at, get.last_seen_at, get.request_count, get.has_pii],
      [at(10), at(30), 2, false],
    );
    assert.deepEqual(
      [get.source_workload_kind, get.source_workload_name, get.source_workload_namespace],
      ['Deployment', 'web', 'shop'],
    );
    assert.deepEqual(
      [get.destination_workload_name, get.destination_port, get.destination_addr],
      ['api', 8000, '10.96.12.40'],
    );
    assert.deepEqual(
      [get.trusted_ip, get.trusted_ip_prefix, get.trusted_ip_description],
      [true, '10.96.0.0/12', 'Service network'],
    );
    const pii = observations.find((o) => o.has_pii)!;
    assert.deepEqual(
      [pii.path, pii.pii_labels, pii.request_count],
      ['/users/{id}?email={email}', ['email'], 2],
    );
    assert.ok(!JSON.stringify(observations).includes('example.'), 'no matched value is kept anywhere');
  });

  test('inbound events describe the envelope as destination; unknown peers stay empty; IPv6 trust', () => {
    const [inbound] = observeHttpRequests(
      [
        httpRequest(at(1), '/orders', {
          direction: 'inbound',
          source: { address: '2001:db8::44' },
          destination: { address: '10.244.1.17', port: 3000 },
          headers: { 'content-type': 'application/grpc+proto' },
          protocol: 'HTTP/2',
        }),
      ],
      { clusterId: 'c1', trustedPrefixes },
    );
    assert.deepEqual(
      [
        inbound!.source_workload_name,
        inbound!.destination_workload_kind,
        inbound!.destination_workload_name,
        inbound!.app_protocol,
      ],
      ['', 'Deployment', 'web', 'grpc'],
    );
    assert.equal(inbound!.trusted_ip, false, 'the destination, not the source, is matched');
    const [v6] = observeHttpRequests(
      [
        httpRequest(at(1), '/', {
          destination: { address: '2001:db8::9', port: 443, hostname: 'partner.example' },
        }),
      ],
      {
        clusterId: 'c1',
        trustedPrefixes,
      },
    );
    assert.deepEqual(
      [v6!.trusted_ip, v6!.trusted_ip_description, v6!.destination_hostname],
      [true, 'v6 partner', 'partner.example'],
    );
  });

  test('the key is stable across pushes and merging widens the seen range', () => {
    const [a] = observeHttpRequests([httpRequest(at(100), '/users/1')], { clusterId: 'c1' });
    const [b] = observeHttpRequests([httpRequest(at(5), '/users/2')], { clusterId: 'c1' });
    const [other] = observeHttpRequests([httpRequest(at(5), '/users/2')], { clusterId: 'c2' });
    assert.equal(a!.key, b!.key);
    assert.notEqual(a!.key, other!.key);
    const merged = mergeHttpObservations(a!, b!);
    assert.deepEqual([merged.first_seen_at, merged.last_seen_at, merged.request_count], [at(5), at(100), 2]);
  });
});
