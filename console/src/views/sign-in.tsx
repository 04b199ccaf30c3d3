/**
 * Sign-in with an access key. The secret goes to POST /console/session once; the session comes
 * back as an HttpOnly cookie this page cannot read, and the form is cleared.
 */
import { type FormEvent, useEffect, useState } from 'react';
import { ApiRequestError } from '../api/errors.js';
import { signIn } from '../api/session.js';
import { ErrorMessage } from '../components/error-message.js';
import { Notice } from '../components/status.js';

export function SignIn({
  message,
  onSignedIn,
}: {
  message?: string | undefined;
  onSignedIn: () => Promise<void>;
}) {
  const [error, setError] = useState<ApiRequestError | null>(null);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    document.title = 'Sign in · Posture';
  }, []);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = event.currentTarget;
    const data = new FormData(form);
    setBusy(true);
    setError(null);
    try {
      await signIn(
        String(data.get('access_key_id') ?? '').trim(),
        String(data.get('secret_key') ?? '').trim(),
      );
      form.reset();
      await onSignedIn();
    } catch (failure) {
      setError(
        failure instanceof ApiRequestError
          ? failure
          : new ApiRequestError(0, 'client', String(failure), null),
      );
      setBusy(false);
    }
  }

  return (
    <main className="sign-in-page">
      <form className="sign-in card" onSubmit={submit} aria-labelledby="sign-in-title">
        <h1 id="sign-in-title">Sign in to Posture</h1>
        <p className="muted">
          Use an access key: its id and its secret, shown once when the key was created.
        </p>
        {message && <Notice kind="warning">{message}</Notice>}
        {error && (
          <ErrorMessage
            error={error}
            title={error.code === 'invalid_credentials' ? 'Sign-in refused' : 'Sign-in failed'}
          />
        )}
        <label htmlFor="access-key-id">Access key id</label>
        <input
          id="access-key-id"
          name="access_key_id"
          required
          autoComplete="username"
          spellCheck={false}
          placeholder="pak_…"
        />
        <label htmlFor="secret-key">Secret key</label>
        <input
          id="secret-key"
          name="secret_key"
          type="password"
          required
          autoComplete="current-password"
          spellCheck={false}
          placeholder="psk_…"
        />
        <button type="submit" className="button button-primary" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}
