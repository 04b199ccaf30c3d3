/**
 * The hostile material of the fuzz suite: numbers that are not numbers, text that breaks naive
 * encoders and parsers, injection strings for the grammar parameters (`filters`, `sort`, `q`,
 * `columns`), malformed JSON, wrong content types. Values travel percent-encoded; a few are kept
 * as raw encoded fragments because they cannot exist as a JavaScript string (a lone surrogate in
 * UTF-8, an overlong sequence, a broken escape).
 */
import fc from 'fast-check';

const UNRESERVED = /[A-Za-z0-9\-._~]/;

/**
 * Percent-encodes every UTF-8 byte outside the unreserved set. Unlike encodeURIComponent it never
 * throws: a lone surrogate becomes U+FFFD, as a client's UTF-8 encoder would send it.
 */
export function percentEncode(text: string): string {
  let out = '';
  for (const byte of Buffer.from(text, 'utf8')) {
    const char = String.fromCharCode(byte);
    out +=
      byte < 0x80 && UNRESERVED.test(char) ? char : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** Numbers as text that an integer or boolean parameter must refuse or clamp, never crash on. */
export const HOSTILE_NUMBERS = [
  '-1',
  '0',
  '-0',
  '1.5',
  '1e3',
  '1e309',
  '-1e309',
  'NaN',
  'Infinity',
  '-Infinity',
  '+Infinity',
  '9007199254740993',
  '99999999999999999999999999999',
  '-9223372036854775809',
  '2147483648',
  '4294967296',
  '0x10',
  '0b1',
  '0o7',
  ' 1',
  '1 ',
  '+1',
  '1_000',
  'null',
  'true',
  'false',
  '[]',
  '{}',
  '١',
  '１',
  '1,2',
  '--1',
  '.5',
  '5.',
  'e',
  '0.0000000001',
];

/** Text that is fine as UTF-8 but hostile to whatever handles it next. */
export const HOSTILE_TEXT = [
  '\u202egnp.exe', // right-to-left override
  'abc\u0000def', // NUL: PostgreSQL text cannot hold it
  '\u0000',
  '💥🔥👩‍👩‍👧‍👦',
  'e\u0301\u0301\u0301', // stacked combining marks
  '\ufeff', // byte-order mark
  '\u2028\u2029', // JS line separators
  'ǅ ß ﬃ İ ı', // case-mapping traps for ILIKE / lower()
  '\r\n\tx',
  '\\',
  '..%2f..%2fetc%2fpasswd',
  '<script>alert(1)</script>',
  '\ud800', // lone surrogate (becomes U+FFFD on the wire)
  'a'.repeat(5000),
];

/** Already percent-encoded fragments that no JavaScript string encodes to. */
export const RAW_ENCODED = [
  '%ED%A0%80', // UTF-8 of a lone high surrogate
  '%ED%BF%BF', // lone low surrogate
  '%F0%9F%92', // truncated 4-byte sequence
  '%C0%AF', // overlong '/'
  '%FF%FE',
  '%00',
  '%E2%80%AE',
  '%', // a broken escape
  '%zz',
  '%%41',
  '%u0041',
];

/** Strings aimed at SQL built by concatenation, LIKE patterns and the `key:value` grammars. */
export const INJECTIONS = [
  "' or 1=1 --",
  "'; drop table accounts; --",
  "' union select secret_hash from access_keys --",
  "%' or '%'='",
  '%',
  '_',
  '%_%',
  '\\',
  "\\'",
  '\\%',
  '"',
  '`',
  '$1',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a log4j-style lookup, meant literally
  '${jndi:ldap://x}',
  '{"$gt":""}',
  '{"a":',
  '[1,2]',
  'null',
  '::',
  ':',
  ',',
  '\\,',
  'a:b:c',
  '(select 1)',
  '1;select pg_sleep(5)',
  "E'\\x00'",
  '*',
  'name:asc,name:desc',
  'id:asc',
  '__proto__',
  'constructor',
];

/** A hostile string: one of the lists, or random full-unicode text (surrogates included). */
export const hostileString: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...HOSTILE_TEXT, ...INJECTIONS),
  // NUL inside otherwise ordinary text: PostgreSQL cannot store it (the first defect this suite found)
  fc.string({ maxLength: 8 }).map((text) => `${text}\u0000${text}`),
  // any UTF-16 code unit, lone surrogates included (unit 'binary' would build a table of every
  // code point first, a second and a half of set-up)
  fc.string({
    unit: fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code)),
    maxLength: 30,
  }),
  fc.string({ unit: 'grapheme', maxLength: 30 }),
);

/** A hostile value as it travels: percent-encoded text, or a raw encoded fragment around it. */
export const hostileEncoded: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: hostileString.map(percentEncode), weight: 4 },
  fc
    .tuple(fc.constantFrom(...RAW_ENCODED), hostileString.map(percentEncode))
    .map(([raw, text]) => `${text}${raw}`),
);

/** Bodies that are not JSON, or JSON of the wrong shape, for JSON routes. */
export const MALFORMED_JSON = [
  '',
  '{',
  '}',
  '{"a":}',
  '{"a":1,}',
  "{'a':1}",
  '{"a":1}}',
  '{"a":1} trailing',
  '[',
  'null',
  'true',
  '"text"',
  '123',
  '[]',
  'NaN',
  '{"a":NaN}',
  '{"a":Infinity}',
  '\ufeff{}',
  '{"a":"\\ud800"}',
  '{"a":"\\u0000"}',
  '{"a":"\u0000"}',
  '{"__proto__":{"admin":true}}',
  '{"constructor":{"prototype":{"admin":true}}}',
  '{"a":1,"a":2}',
  '\u0000',
  '{"a":1}\n{"b":2}',
];

/** Content types a route does not take, and broken ones. */
export const WRONG_CONTENT_TYPES = [
  'text/plain',
  'text/html',
  'application/xml',
  'multipart/form-data; boundary=x',
  'application/x-www-form-urlencoded',
  'application/json; charset=latin1',
  'application/json; charset=utf-16',
  'application/jsonx',
  'application/json, text/plain',
  ';;;',
  '*/*',
  'application/',
  'image/png',
];

/** A JSON document nested `depth` levels deep (arrays, or objects), under a harmless top level. */
export function deeplyNested(depth: number, objects: boolean): string {
  const open = objects ? '{"a":' : '[';
  const close = objects ? '}' : ']';
  return `{"nested":${open.repeat(depth)}1${close.repeat(depth)}}`;
}
