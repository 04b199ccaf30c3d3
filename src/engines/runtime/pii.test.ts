import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { detectPii, luhnValid, mayHoldPii, runDetectors } from './pii.js';

const labels = (value: string, name?: string) => detectPii(value, name);

describe('PII detectors', () => {
  test('email: addresses, also inside text; not hosts without a domain, handles or image densities', () => {
    for (const value of [
      'jane.doe@example.com',
      'contact me: j+tag@mail.example.co.uk today',
      'A_B@sub-domain.example.io',
    ]) {
      assert.deepEqual(labels(value), ['email'], value);
    }
    for (const value of [
      'user@localhost',
      '@handle',
      'name@domain',
      'logo@2x.png',
      'icon@1.5x.webp',
      'a@b.c',
    ]) {
      assert.deepEqual(labels(value), [], value);
    }
  });

  test('credit_card: brand prefixes passing Luhn, plain or grouped', () => {
    for (const value of [
      '4111111111111111',
      '4111 1111 1111 1111',
      '5500-0000-0000-0004',
      '378282246310005',
      '6011111111111117',
    ]) {
      assert.deepEqual(labels(value), ['credit_card'], value);
    }
  });

  test('credit_card near misses: Luhn failure, unknown prefix, inside a longer number, too short', () => {
    assert.equal(luhnValid('4111111111111112'), false);
    for (const value of [
      '4111111111111112',
      '1234567812345670',
      '94111111111111111',
      '411111111111',
      '4111-1111-1111-111',
    ]) {
      assert.deepEqual(labels(value), [], value);
    }
    assert.equal(luhnValid('1234567812345670'), true, 'passes Luhn but starts like no card brand');
  });

  test('us_ssn: dashed with valid area, group and serial', () => {
    for (const value of ['123-45-6789', 'ssn 078-05-1120 on file'])
      assert.deepEqual(labels(value), ['us_ssn'], value);
  });

  test('us_ssn near misses: dates, invalid ranges, undashed, inside longer runs', () => {
    for (const value of [
      '2024-05-01',
      '05-01-2024',
      '2024-123-45',
      '000-12-3456',
      '666-12-3456',
      '912-34-5678',
      '123-00-4567',
      '123-45-0000',
      '123456789',
      '1123-45-67890',
      '123-45-6789-1',
    ]) {
      assert.deepEqual(labels(value), [], value);
    }
  });

  test('phone_number: E.164, North American formats, digits where the parameter says phone', () => {
    for (const value of [
      '+14155550132',
      '+1-415-555-0132',
      '+44 20 7946 0958',
      '(415) 555-0132',
      '415-555-0132',
      '415.555.0132',
    ]) {
      assert.deepEqual(labels(value), ['phone_number'], value);
    }
    assert.deepEqual(labels('4155550132', 'phone'), ['phone_number']);
    assert.deepEqual(labels('4155550132', 'msisdn'), ['phone_number']);
  });

  test('phone_number near misses: bare digit runs, short international numbers, IP-like and version strings', () => {
    for (const value of ['4155550132', '+1234', '10.123.456.7890', '2024-05-01', '1.415.555.0132.5']) {
      assert.deepEqual(labels(value), [], value);
    }
    assert.deepEqual(labels('4155550132', 'page'), []);
    assert.deepEqual(labels('12', 'phone'), []);
  });

  test('bearer_token: JWTs, Bearer values, token parameters', () => {
    const jwt =
      'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U';
    assert.deepEqual(labels(jwt), ['bearer_token']);
    assert.deepEqual(labels('Bearer abcdefgh12345678'), ['bearer_token']);
    assert.deepEqual(labels('opaque-value-1234', 'access_token'), ['bearer_token']);
    assert.deepEqual(labels('x', 'token'), [], 'too short to be a credential');
    assert.deepEqual(labels('opaque-value-1234', 'page_token'), [], 'pagination tokens are not credentials');
    assert.deepEqual(labels('eyJhbGciOi'), [], 'a JWT header alone is not a token');
  });

  test('api_key: well-known formats and key parameters', () => {
    for (const value of [
      'sk-proj-abcdefghijklmnopqrstuvwx',
      'AKIAIOSFODNN7EXAMPLE',
      `ghp_${'a1B2'.repeat(9)}`,
      'xoxb-123456789012-abcdef',
      `AIza${'b'.repeat(35)}`,
    ]) {
      assert.deepEqual(labels(value), ['api_key'], value);
    }
    assert.deepEqual(labels('hunter22', 'password'), ['api_key']);
    assert.deepEqual(labels('hunter22', 'keyword'), []);
    assert.deepEqual(labels('AKIA1234'), [], 'too short for an AWS key id');
    assert.deepEqual(labels('task-scheduler'), []);
  });

  test('several labels in one value, in a fixed order', () => {
    assert.deepEqual(labels('jane@example.com 4111111111111111 123-45-6789'), [
      'email',
      'credit_card',
      'us_ssn',
    ]);
  });

  test('Luhn check digits: any number completed with its check digit passes, a changed digit fails', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 9 }), { minLength: 12, maxLength: 18 }),
        fc.integer({ min: 1, max: 9 }),
        (digits, delta) => {
          const body = digits.join('');
          const check = [...Array(10).keys()].find((d) => luhnValid(`${body}${d}`))!;
          assert.ok(luhnValid(`${body}${check}`));
          assert.ok(!luhnValid(`${body}${(check + delta) % 10}`));
        },
      ),
    );
  });

  test('the pre-check lets through every value a detector labels', () => {
    // Pieces of each format, so random joins land on real matches as well as near misses.
    const piece = fc.constantFrom(
      ...[
        '4111',
        '1111',
        '5500',
        '0000',
        '378282246310005',
        '123-45-6789',
        '+44',
        '20 7946 0958',
        '(555) ',
        '555-0134',
      ],
      ...[
        'jane',
        '@',
        'example',
        '.com',
        '.co.uk',
        'logo@2x.png',
        'eyJhbGciOiJIUzI1NiJ9',
        '.',
        'eyJzdWIiOiIx',
        '_-',
      ],
      ...[
        'Bearer ',
        'bearer\t',
        'sk-',
        'sk_live_',
        'rk_test_',
        'AKIA',
        'ASIA',
        'ghp_',
        'glpat-',
        'xoxb-',
        'AIza',
        'AIzaSyDdIhCZtEvySjMmWEfRqCPzqKqqsHIab',
      ],
      ...[
        'ABCDEFGHIJKLMNOP',
        'abcdefghijklmnopqrstuvwxyz',
        'abcdefghij0123456789',
        '-',
        ' ',
        '/',
        '=',
        '%40',
        'api',
        'v1',
        'orders',
        '42',
        '7',
      ],
    );
    const name = fc.constantFrom(
      '',
      'q',
      'page',
      'token',
      'Access_Token',
      'apikey',
      'password',
      'Phone',
      'tel',
      'msisdn',
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 8 }), name, (pieces, param) => {
        const value = pieces.join('');
        const lowered = param.toLowerCase();
        if (runDetectors(value, lowered).length > 0)
          assert.ok(mayHoldPii(value, lowered), `${param}=${value}`);
        assert.deepEqual(detectPii(value, param), value === '' ? [] : runDetectors(value, lowered));
      }),
      { numRuns: 20_000 },
    );
  });
});
