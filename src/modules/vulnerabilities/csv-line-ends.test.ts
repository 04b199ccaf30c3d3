import assert from 'node:assert/strict';
import { test } from 'node:test';
import { stringify } from 'csv-stringify/sync';
import fc from 'fast-check';
import { CrlfRecordEnds, crlfRecords } from './csv-line-ends.js';

/** CSV as COPY writes it (LF record ends, a field with a comma, quote, CR or LF quoted) and as the report must. */
const written = (records: string[][], recordDelimiter: '\n' | '\r\n') =>
  stringify(records, { record_delimiter: recordDelimiter, quoted_match: /[\r\n]/ });

/** `bytes` cut at the given positions. */
function cut(bytes: Buffer, positions: number[]): Buffer[] {
  const ends = [...new Set(positions.map((p) => p % (bytes.length + 1)))].sort((a, b) => a - b);
  const pieces: Buffer[] = [];
  let start = 0;
  for (const end of [...ends, bytes.length]) {
    pieces.push(bytes.subarray(start, end));
    start = end;
  }
  return pieces;
}

test('record ends become CRLF; line breaks inside quoted values keep their bytes', () => {
  const ends = new CrlfRecordEnds();
  assert.equal(
    ends.convert(Buffer.from('a,"x\ny"\n"q""\n""",c\nd\n')).toString(),
    'a,"x\ny"\r\n"q""\n""",c\r\nd\r\n',
  );
});

test('any records, cut into chunks anywhere (inside a value, between doubled quotes)', () => {
  const text = fc.string({ unit: fc.constantFrom('a', ',', '"', '\n', '\r', 'é', ' ') });
  fc.assert(
    fc.property(
      fc.array(fc.array(text, { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 8 }),
      fc.array(fc.nat(), { maxLength: 10 }),
      (records, positions) => {
        const ends = new CrlfRecordEnds();
        const lf = Buffer.from(written(records, '\n'));
        const converted = Buffer.concat(cut(lf, positions).map((piece) => ends.convert(piece)));
        assert.equal(converted.toString(), written(records, '\r\n'));
      },
    ),
  );
});

test('crlfRecords carries the state across the chunks of a stream', async () => {
  async function* chunks() {
    yield Buffer.from('"a\n');
    yield Buffer.from('b"\n');
  }
  const out: Buffer[] = [];
  for await (const chunk of crlfRecords(chunks())) out.push(chunk);
  assert.equal(Buffer.concat(out).toString(), '"a\nb"\r\n');
});
