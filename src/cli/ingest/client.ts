/**
 * The HTTP side of `posture ingest`: authenticate once, then push each chunk to its ingestion
 * endpoint with an Idempotency-Key derived from the chunk's content, so running the same command
 * twice (or retrying after a network error) stores nothing twice.
 */
import { createHash } from 'node:crypto';
import type { IngestKind } from './detect.js';

export interface IngestTarget {
  url: string;
  accountId: string;
  clusterId: string;
}

export class HttpFailure extends Error {}

interface ApiErrorBody {
  status?: number;
  code?: string;
  message?: string;
  request_id?: string;
  validation_details?: { field: string; message: string }[];
}

async function failure(response: Response, what: string): Promise<HttpFailure> {
  let body: ApiErrorBody = {};
  try {
    body = (await response.json()) as ApiErrorBody;
  } catch {
    // not an ApiError body: the status alone must do
  }
  const detail = body.validation_details?.[0];
  const parts = [
    `${what}: ${response.status} ${body.code ?? response.statusText}`,
    body.message,
    detail ? `${detail.field} ${detail.message}` : undefined,
    body.request_id ? `(request ${body.request_id})` : undefined,
  ];
  return new HttpFailure(
    parts
      .filter(Boolean)
      .join(': ')
      .replace(/: \(request/, ' (request'),
  );
}

/** fetch() says only "fetch failed"; say which server and why. */
async function send(url: URL, init: RequestInit): Promise<Response> {
  try {
    return await fetch(url, init);
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    throw new HttpFailure(
      `cannot reach ${url.origin}: ${cause?.code ?? cause?.message ?? (error as Error).message}`,
    );
  }
}

export async function authenticate(url: string, accessKeyId: string, secretKey: string): Promise<string> {
  const response = await send(new URL('/authentication/authenticate', url), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ access_key_id: accessKeyId, secret_key: secretKey }),
  });
  if (!response.ok) throw await failure(response, 'authentication failed');
  return ((await response.json()) as { token: string }).token;
}

export async function push(
  target: IngestTarget,
  token: string,
  chunk: { kind: IngestKind; body: Buffer; gzip: boolean; snapshot: boolean; label: string },
): Promise<Record<string, unknown>> {
  const path = `/accounts/${target.accountId}/clusters/${target.clusterId}/ingest/${chunk.kind}`;
  const url = new URL(path, target.url);
  if (chunk.snapshot && chunk.kind === 'kubernetes') url.searchParams.set('mode', 'snapshot');
  const idempotencyKey = createHash('sha256')
    .update(`${path}\n${url.search}\n`)
    .update(chunk.body)
    .digest('hex');
  const headers: Record<string, string> = {
    authorization: `Bearer ${token}`,
    'content-type': chunk.kind === 'runtime' ? 'application/x-ndjson' : 'application/json',
    'idempotency-key': idempotencyKey,
  };
  if (chunk.gzip) headers['content-encoding'] = 'gzip';
  const response = await send(url, { method: 'POST', headers, body: chunk.body });
  if (!response.ok) throw await failure(response, chunk.label);
  return (await response.json()) as Record<string, unknown>;
}
