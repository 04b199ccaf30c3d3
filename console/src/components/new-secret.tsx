/**
 * A newly created access key: its secret is in the creation answer only (the server keeps a keyed
 * hash), so it is shown here once, with copy buttons and a warning, until the person confirms.
 */
import { useEffect, useRef } from 'react';
import type { CreatedAccessKey } from '../api/types.js';
import { CopyButton } from './copy-button.js';

export function NewSecret({ created, onDone }: { created: CreatedAccessKey; onDone: () => void }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  return (
    <section className="card secret-card" aria-labelledby="secret-title">
      <h2 id="secret-title" ref={heading} tabIndex={-1}>
        Key {created.name} created
      </h2>
      <div className="notice notice-warning" role="alert">
        <p className="notice-title">Copy the secret key now: it is shown only once.</p>
        <p>Posture keeps only a keyed hash of it. If it is lost, revoke this key and create another.</p>
      </div>
      <div className="form-row">
        <label htmlFor="new-key-id">Access key id</label>
        <div className="with-action">
          <input id="new-key-id" readOnly value={created.id} spellCheck={false} />
          <CopyButton text={created.id} label="Copy id" />
        </div>
      </div>
      <div className="form-row">
        <label htmlFor="new-key-secret">Secret key</label>
        <div className="with-action">
          <input id="new-key-secret" readOnly value={created.secret_key} spellCheck={false} />
          <CopyButton text={created.secret_key} label="Copy secret" />
        </div>
      </div>
      <button type="button" className="button button-primary" onClick={onDone}>
        I have saved the secret
      </button>
    </section>
  );
}
