/**
 * Signing in and out through the console's session endpoints (the token stays in an HttpOnly
 * cookie), and what the console loads once signed in.
 */
import { api } from './client.js';
import type { Account, ConsoleSession, OffsetList } from './types.js';

export async function signIn(accessKeyId: string, secretKey: string): Promise<ConsoleSession> {
  return api<ConsoleSession>('POST', '/console/session', {
    body: { access_key_id: accessKeyId, secret_key: secretKey },
    quiet: true,
  });
}

export function signOut(): Promise<void> {
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
