/**
 * `Idempotency-Key` for ingestion pushes. The first push with a key stores its answer in the same
 * transaction as its data; a retry with the same key and the same request replays that answer and
 * changes nothing; the same key with a different request is 409 conflict. A failed push stores
 * nothing, so its retry runs for real. Keys are per account and remembered for 24 hours.
 *
 * Concurrent pushes with one key serialise on the key's primary key: the second waits for the
 * first to commit, then replays its answer.
 *
 * @example
 *   const hash = requestHash(['POST', path, query], body);
 *   const replay = await claimIdempotencyKey(tx, { accountId, key, requestHash: hash });
 *   if (replay) return replay;
 *   ... work ...
 *   await storeIdempotentResponse(tx, { accountId, key, requestHash: hash }, response);
 */
import { createHash } from 'node:crypto';
import type { Executor } from '../db/database.js';
import { ApiError } from '../http/errors.js';

export const IDEMPOTENCY_KEY_PATTERN = '^[\\x21-\\x7e]{1,255}$';
const RETENTION = '24 hours';

export interface IdempotentRequest {
  accountId: string;
  key: string;
  /** what identifies the request: endpoint, parameters and body */
  requestHash: string;
}

export interface Replay<T> {
  response: T;
}

export function requestHash(parts: readonly string[], body: Buffer): string {
  const hash = createHash('sha256');
  for (const part of parts) hash.update(part).update('\u0000');
  return hash.update(body).digest('hex');
}

/**
 * The idempotency identity of a push, or undefined when the client sent no Idempotency-Key.
 * `parts` name the endpoint and every parameter that changes what the push means.
 */
export function idempotentRequest(
  accountId: string,
  key: string | undefined,
  parts: readonly string[],
  body: Buffer,
): IdempotentRequest | undefined {
  return key ? { accountId, key, requestHash: requestHash(parts, body) } : undefined;
}

function replayOrConflict<T>(row: { request_hash: string; response: unknown }, request: IdempotentRequest) {
  if (row.request_hash !== request.requestHash) {
    throw new ApiError(
      'conflict',
      'this Idempotency-Key was already used for a different request; use a new key for a new push',
    );
  }
  const response = typeof row.response === 'string' ? JSON.parse(row.response) : row.response;
  return { response: response as T };
}

/** The stored answer of a completed request with this key, without taking the key (a fast path). */
export async function findReplay<T>(db: Executor, request: IdempotentRequest): Promise<Replay<T> | null> {
  const { rows } = await db.query<{ request_hash: string; response: unknown }>(
    `select request_hash, response from idempotency_keys
      where account_id = $1 and key = $2 and response is not null
        and created_at > now() - interval '${RETENTION}'`,
    [request.accountId, request.key],
  );
  return rows[0] ? replayOrConflict<T>(rows[0], request) : null;
}

/**
 * Takes the key for this transaction, or returns the answer of the request that already took it.
 */
export async function claimIdempotencyKey<T>(
  tx: Executor,
  request: IdempotentRequest,
): Promise<Replay<T> | null> {
  await tx.query(
    `delete from idempotency_keys where account_id = $1 and created_at <= now() - interval '${RETENTION}'`,
    [request.accountId],
  );
  const claimed = await tx.query(
    `insert into idempotency_keys (account_id, key, request_hash) values ($1, $2, $3)
     on conflict do nothing returning key`,
    [request.accountId, request.key, request.requestHash],
  );
  if (claimed.rowCount > 0) return null;
  const { rows } = await tx.query<{ request_hash: string; response: unknown }>(
    'select request_hash, response from idempotency_keys where account_id = $1 and key = $2',
    [request.accountId, request.key],
  );
  if (!rows[0]) throw new ApiError('conflict', 'this Idempotency-Key is in use by a request in progress');
  return replayOrConflict<T>(rows[0], request);
}

export async function storeIdempotentResponse(tx: Executor, request: IdempotentRequest, response: unknown) {
  await tx.query(
    'update idempotency_keys set response = $3::text::jsonb where account_id = $1 and key = $2',
    [request.accountId, request.key, JSON.stringify(response)],
  );
}
