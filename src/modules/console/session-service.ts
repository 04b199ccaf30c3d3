/**
 * Sign-in and sign-out for the web console: the access-key exchange of the authentication service,
 * with the token kept for a cookie instead of handed to page scripts.
 */
import type { Database } from '../../db/database.js';
import { hashToken } from '../../security/secrets.js';
import { announceSessionChange } from '../auth/revocations.js';
import type { AuthService } from '../auth/service.js';
import { deleteSession } from './session-repository.js';

export interface ConsoleSignIn {
  token: string;
  expiresAt: Date;
  body: {
    expires_at: string;
    tenant_id: string;
    user_id: string;
    access_key_id: string;
    key_scope: 'tenant' | 'account';
    key_account_id: string | null;
  };
}

export function createConsoleSessionService({
  db,
  auth,
}: {
  db: Database;
  auth: Pick<AuthService, 'authenticate' | 'actorForToken'>;
}) {
  return {
    async signIn(
      credentials: { accessKeyId: string; secretKey: string },
      clientAddress: string,
    ): Promise<ConsoleSignIn> {
      // Same throttling, same answers (invalid_credentials, 429) as /authentication/authenticate.
      const session = await auth.authenticate(credentials, clientAddress);
      const actor = await auth.actorForToken(session.token);
      return {
        token: session.token,
        expiresAt: session.expiresAt,
        body: {
          expires_at: session.expiresAt.toISOString(),
          tenant_id: actor.tenantId,
          user_id: actor.userId,
          access_key_id: actor.accessKeyId,
          key_scope: actor.keyScope,
          key_account_id: actor.keyAccountId,
        },
      };
    },

    /** Idempotent: an unknown or already ended session is simply gone. */
    async signOut(token: string | undefined): Promise<void> {
      if (!token) return;
      const tokenHash = hashToken(token);
      await deleteSession(db, tokenHash);
      announceSessionChange({ tokenHash });
    },
  };
}

export type ConsoleSessionService = ReturnType<typeof createConsoleSessionService>;
