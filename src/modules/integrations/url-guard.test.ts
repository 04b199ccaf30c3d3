import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { addressRefusal, checkOutboundUrl, UrlRefused, UrlSyntaxError } from './url-guard.js';

const strict = { allowPrivateNetworks: false };
const open = { allowPrivateNetworks: true };

describe('outbound URL policy', () => {
  test('link-local, metadata, unspecified and multicast addresses are refused even when private networks are allowed', () => {
    for (const address of [
      '169.254.169.254',
      '169.254.0.1',
      '0.0.0.0',
      '0.1.2.3',
      '100.100.100.200',
      '224.0.0.1',
      '255.255.255.255',
      '::',
      'fe80::1',
      'febf::1',
      'fd00:ec2::254',
      'ff02::1',
      '::ffff:169.254.169.254',
    ]) {
      assert.match(addressRefusal(address, open) ?? '', /link-local|metadata|unspecified/, address);
    }
  });

  test('loopback and private ranges need INTEGRATIONS_ALLOW_PRIVATE_NETWORKS', () => {
    for (const address of [
      '127.0.0.1',
      '10.1.2.3',
      '172.16.0.1',
      '172.31.255.255',
      '192.168.1.1',
      '100.64.0.1',
      '::1',
      'fd12::1',
      '::ffff:127.0.0.1',
    ]) {
      assert.match(addressRefusal(address, strict) ?? '', /private/, address);
      assert.equal(addressRefusal(address, open), null, address);
    }
  });

  test('public addresses pass', () => {
    for (const address of ['93.184.216.34', '172.32.0.1', '8.8.8.8', '2606:4700::1111', 'fec0::1']) {
      assert.equal(addressRefusal(address, strict), null, address);
    }
  });

  test('URL syntax: http(s) only, no credentials', async () => {
    for (const text of [
      'not a url',
      'ftp://example.com/x',
      'file:///etc/passwd',
      'https://user:pw@93.184.216.34/',
    ]) {
      await assert.rejects(checkOutboundUrl(text, open), UrlSyntaxError, text);
    }
  });

  test('hosts are checked on every address they resolve to; metadata host names are refused by name', async () => {
    await assert.rejects(checkOutboundUrl('http://localhost:8080/hook', strict), UrlRefused);
    assert.match(
      (await checkOutboundUrl('http://localhost:8080/hook', open)).address,
      /^(127\.0\.0\.1|::1)$/,
    );
    await assert.rejects(
      checkOutboundUrl('http://metadata.google.internal/computeMetadata/v1/', open),
      /metadata host/,
    );
    await assert.rejects(checkOutboundUrl('http://[fe80::1]/', open), /link-local/);
    await assert.rejects(checkOutboundUrl('http://does-not-exist.invalid/', open), /does not resolve/);
    assert.deepEqual(await checkOutboundUrl('https://93.184.216.34/hook', strict), {
      address: '93.184.216.34',
      family: 4,
    });
  });
});
