import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { ApiError } from '../http/errors.js';
import { bodyText, decodeIngestBody } from './body.js';

async function rejection(promise: Promise<unknown>): Promise<ApiError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof ApiError, String(error));
    return error;
  }
  assert.fail('expected a rejection');
}

describe('decodeIngestBody', () => {
  const json = Buffer.from('{"kind":"List","items":[]}');

  test('an uncompressed body is returned as is', async () => {
    assert.deepEqual(await decodeIngestBody(json, undefined), json);
    assert.deepEqual(await decodeIngestBody(json, 'identity'), json);
  });

  test('gzip is decompressed when announced, and when only its magic bytes say so', async () => {
    assert.deepEqual(await decodeIngestBody(gzipSync(json), 'gzip'), json);
    assert.deepEqual(await decodeIngestBody(gzipSync(json), 'x-gzip'), json);
    assert.deepEqual(await decodeIngestBody(gzipSync(json), undefined), json);
  });

  test('a body that expands beyond the bound is 413, however small on the wire', async () => {
    const bomb = gzipSync(Buffer.alloc(8 * 1024 * 1024, 0x20));
    assert.ok(bomb.length < 64 * 1024);
    const error = await rejection(decodeIngestBody(bomb, 'gzip', 1024 * 1024));
    assert.equal(error.status, 413);
    assert.equal(error.code, 'payload_too_large');
    assert.deepEqual(
      await decodeIngestBody(bomb, 'gzip', 9 * 1024 * 1024),
      Buffer.alloc(8 * 1024 * 1024, 0x20),
    );
  });

  test('broken gzip, an empty body and other encodings are refused', async () => {
    const broken = await rejection(decodeIngestBody(Buffer.from([0x1f, 0x8b, 1, 2, 3]), undefined));
    assert.equal(broken.status, 400);
    assert.equal(broken.validationDetails[0]?.field, 'body');
    assert.equal((await rejection(decodeIngestBody(json, 'gzip'))).status, 400);
    const empty = await rejection(decodeIngestBody(Buffer.alloc(0), undefined));
    assert.equal(empty.validationDetails[0]?.code, 'required');
    assert.equal((await rejection(decodeIngestBody(undefined, undefined))).status, 400);
    assert.equal((await rejection(decodeIngestBody(gzipSync(''), 'gzip'))).status, 400);
    assert.equal((await rejection(decodeIngestBody(json, 'br'))).code, 'unsupported_media_type');
  });

  test('bodyText drops a byte-order mark', () => {
    assert.equal(bodyText(Buffer.from('\ufeff{}')), '{}');
  });
});
