import assert from 'node:assert/strict';
import { test } from 'node:test';
import { textPartsStream } from './text-parts-stream.js';

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

test('the parts arrive in order as UTF-8, empty parts included', async () => {
  const parts = ['{"entries":[', '{"name":"é"}', '', ',{"name":"✓"}', '],"total_count":2}'];
  assert.equal(await readAll(textPartsStream([...parts])), parts.join(''));
  assert.equal(await readAll(textPartsStream([])), '');
  assert.equal(await readAll(textPartsStream(['', ''])), '');
});

test('a part given as pieces arrives as their joined text; empty pieces and parts are skipped', async () => {
  const parts = [
    '{"entries":[',
    ['{"name":', '"é"', '}'],
    [],
    [',', '', '{"name":"✓"}'],
    '],"total_count":2}',
  ];
  assert.equal(
    await readAll(textPartsStream([...parts])),
    '{"entries":[{"name":"é"},{"name":"✓"}],"total_count":2}',
  );
  assert.equal(await readAll(textPartsStream([[''], []])), '');
});

test('a part is encoded only when the reader asks for it, and released once handed over', async () => {
  const big = 'x'.repeat(64 * 1024); // over the stream's 16 KiB buffer: one part fills it
  const parts: (string | undefined)[] = ['[', `"${big}"`, `,"${big}"`, ']'];
  const stream = textPartsStream(parts);
  const first = await new Promise<Buffer>((resolve) => stream.once('readable', () => resolve(stream.read())));
  assert.ok(first.length > 0);
  assert.equal(parts[0], undefined);
  assert.equal(parts[3], ']', 'the last part was not consumed before the reader asked for it');
  stream.resume();
  await new Promise((resolve) => stream.once('end', resolve));
  assert.deepEqual(parts, [undefined, undefined, undefined, undefined]);
});
