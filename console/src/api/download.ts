/**
 * Downloads an API answer as a file. The CVE report gives CSV only to a request whose `Accept`
 * prefers text/csv, which a plain link cannot set, so the file is fetched like any console call
 * (same origin, the session cookie, the console header) and handed to the browser as a blob.
 * Errors come back as ApiRequestError with the request id, as for every call.
 *
 * @example
 *   await downloadFile(`/accounts/${id}/reports/inventory_cves`, { filters }, 'text/csv');
 */
import { ApiRequestError, announceSessionEnded, type Query, queryString } from './client.js';
import { errorFromResponse, unreachable } from './errors.js';

/** The file name of `Content-Disposition: attachment; filename="..."`, if any. */
export function attachmentName(header: string | null): string | null {
  const match = header ? /filename="([^"]+)"/i.exec(header) : null;
  return match?.[1] ?? null;
}

export async function downloadFile(
  path: string,
  query: Query,
  accept: string,
  fallbackName: string,
): Promise<string> {
  let response: Response;
  try {
    response = await fetch(`${path}${queryString(query)}`, {
      headers: { accept, 'x-posture-console': '1' },
      credentials: 'same-origin',
    });
  } catch (cause) {
    throw unreachable(cause);
  }
  if (!response.ok) {
    const error = await errorFromResponse(response);
    if (error.endsSession) announceSessionEnded(error);
    throw error;
  }
  const name = attachmentName(response.headers.get('content-disposition')) ?? fallbackName;
  const url = URL.createObjectURL(await response.blob());
  try {
    const link = document.createElement('a');
    link.href = url;
    link.download = name;
    document.body.append(link);
    link.click();
    link.remove();
  } finally {
    // The click has handed the blob to the download manager; the URL is not needed any more.
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  }
  return name;
}

export { ApiRequestError };
