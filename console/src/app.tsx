/**
 * The console's top level: finds out whether a session exists (the cookie is invisible to
 * scripts, so it asks the API), shows sign-in when not, and sends the person back to sign-in
 * with a message whenever any call learns that the session expired or was ended.
 */
import { useCallback, useEffect, useMemo, useState } from 'react';
import { onSessionEnded } from './api/client.js';
import type { ApiRequestError } from './api/errors.js';
import { loadAccounts, loadOperations, signOut } from './api/session.js';
import type { Account } from './api/types.js';
import { ErrorMessage } from './components/error-message.js';
import { Loading } from './components/status.js';
import { ConsoleContext, type ConsoleContextValue } from './context.js';
import { currentLocation, navigate, useLocation } from './router.js';
import { Shell } from './shell.js';
import { SignIn } from './views/sign-in.js';

type SessionState =
  | { state: 'checking' }
  | { state: 'failed'; error: ApiRequestError }
  | { state: 'signed-out'; message?: string }
  | { state: 'signed-in'; accounts: Account[]; operations: Set<string> | null };

function endedMessage(error: ApiRequestError): string {
  return error.code === 'token_expired'
    ? 'Your session has expired. Sign in again to continue.'
    : 'Your session has ended (signed out elsewhere, key revoked or user locked). Sign in again.';
}

export function App() {
  const [session, setSession] = useState<SessionState>({ state: 'checking' });
  const location = useLocation();

  const start = useCallback(async () => {
    setSession({ state: 'checking' });
    try {
      const [accounts, operations] = await Promise.all([loadAccounts(), loadOperations()]);
      setSession({ state: 'signed-in', accounts, operations });
    } catch (error) {
      const failure = error as ApiRequestError;
      if (failure.endsSession) {
        // No cookie at all is the ordinary first visit: no message. An expired one says so.
        setSession({
          state: 'signed-out',
          ...(failure.code === 'token_expired' ? { message: endedMessage(failure) } : {}),
        });
      } else {
        setSession({ state: 'failed', error: failure });
      }
    }
  }, []);

  useEffect(() => {
    void start();
  }, [start]);

  useEffect(
    () =>
      onSessionEnded((error) => {
        setSession({ state: 'signed-out', message: endedMessage(error) });
      }),
    [],
  );

  // Signed out anywhere but the sign-in page: go there, remembering where the person was.
  useEffect(() => {
    if (session.state !== 'signed-out' || location.path === '/sign-in') return;
    const next = location.path === '/' ? '' : `?next=${encodeURIComponent(currentLocation())}`;
    navigate(`/sign-in${next}`, { replace: true });
  }, [session.state, location.path]);

  const context = useMemo<ConsoleContextValue | null>(() => {
    if (session.state !== 'signed-in') return null;
    return {
      accounts: session.accounts,
      offers: (operation) => session.operations === null || session.operations.has(operation),
      signOut: async () => {
        try {
          await signOut();
        } finally {
          setSession({ state: 'signed-out', message: 'You have signed out.' });
        }
      },
    };
  }, [session]);

  if (session.state === 'checking') {
    return (
      <main className="center-page">
        <Loading what="Opening the console" />
      </main>
    );
  }
  if (session.state === 'failed') {
    return (
      <main className="center-page">
        <ErrorMessage error={session.error} title="The console could not start" />
        <button type="button" className="button" onClick={() => void start()}>
          Try again
        </button>
      </main>
    );
  }
  if (session.state === 'signed-out' || !context) {
    return (
      <SignIn
        message={session.state === 'signed-out' ? session.message : undefined}
        onSignedIn={async () => {
          const next = location.search.get('next');
          await start();
          navigate(next?.startsWith('/') && !next.startsWith('//') ? next : '/', { replace: true });
        }}
      />
    );
  }
  return (
    <ConsoleContext.Provider value={context}>
      <Shell />
    </ConsoleContext.Provider>
  );
}
