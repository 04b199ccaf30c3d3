/**
 * One outbound JSON POST for a webhook delivery: the URL is checked against the outbound policy
 * right before the call and the socket goes to the checked address only; no redirects are
 * followed; the whole exchange has a deadline; the response body is read and discarded.
 */
import http from 'node:http';
import https from 'node:https';
import { checkOutboundUrl, parseOutboundUrl, pinnedLookup, type UrlPolicy } from './url-guard.js';

export interface PostResult {
  status: number;
}

export async function postJson(
  target: string,
  body: string,
  headers: Record<string, string>,
  options: { timeoutMs: number; policy: UrlPolicy },
): Promise<PostResult> {
  const checked = await checkOutboundUrl(target, options.policy);
  const url = parseOutboundUrl(target);
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const request = client.request(
      url,
      {
        method: 'POST',
        headers: {
          ...headers,
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(body)),
          'user-agent': 'Posture-Webhooks/1',
        },
        lookup: pinnedLookup(checked) as never,
        signal: AbortSignal.timeout(options.timeoutMs),
      },
      (response) => {
        response.resume();
        response.on('end', () => resolve({ status: response.statusCode ?? 0 }));
        response.on('error', reject);
      },
    );
    request.on('error', (error) => {
      reject(error.name === 'AbortError' ? new Error(`no answer within ${options.timeoutMs} ms`) : error);
    });
    request.end(body);
  });
}
