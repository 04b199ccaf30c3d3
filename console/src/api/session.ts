/**
 * Signing in and out through the console's session endpoints (the token stays in an HttpOnly
 * cookie), and what the console loads once signed in.
 */
import { api } from './client.js';
import type { Account, ConsoleSession, OffsetList } from './types.js';

const CALLER = 'posture.caller';

export async function signIn(accessKeyId: string, secretKey: string): Promise<ConsoleSession> {
  const session = await api<ConsoleSession>('POST', '/console/session', {
    body: { access_key_id: accessKeyId, secret_key: secretKey },
    quiet: true,
  });
  // Who signed in (ids only, never the token) for this tab, so views can tell which actions the
  // caller's role allows: the API has no "who am I" call a reloaded page could ask instead.
  try {
    window.sessionStorage.setItem(CALLER, JSON.stringify({ user_id: session.user_id }));
  } catch {
    // storage disabled: actions stay offered and the server's refusals are shown
  }
  return session;
}

/** The user id of the person signed in in this tab, when known. */
export function signedInUserId(): string | null {
  try {
    const stored = JSON.parse(window.sessionStorage.getItem(CALLER) ?? 'null') as {
      user_id?: unknown;
    } | null;
    return typeof stored?.user_id === 'string' ? stored.user_id : null;
  } catch {
    return null;
  }
}

export function signOut(): Promise<void> {
  try {
    window.sessionStorage.removeItem(CALLER);
  } catch {
    // nothing stored
  }
  return api<void>('DELETE', '/console/session', { quiet: true });
}

/** Every account the key can see. Doubles as the "am I signed in?" probe (401 when not). */
export async function loadAccounts(): Promise<Account[]> {
  const accounts: Account[] = [];
  for (let offset = 0; ; offset += 1000) {
    const list = await api<OffsetList<Account>>('GET', '/accounts', {
      query: { limit: 1000, offset },
      quiet: true,
    });
    accounts.push(...list.entries);
    if (!list.has_more || list.entries.length === 0) return accounts;
  }
}

/**
 * The operations this server offers ('GET /accounts/{account_id}/clusters'), from its public
 * /openapi.json. Null when the document cannot be read: then every view is offered and an absent
 * endpoint shows its 404 as any error.
 */
export async function loadOperations(): Promise<Set<string> | null> {
  try {
    const document = await api<{ paths: Record<string, Record<string, unknown>> }>('GET', '/openapi.json', {
      quiet: true,
    });
    const operations = new Set<string>();
    for (const [path, methods] of Object.entries(document.paths)) {
      for (const method of Object.keys(methods)) operations.add(`${method.toUpperCase()} ${path}`);
    }
    return operations;
  } catch {
    return null;
  }
}
