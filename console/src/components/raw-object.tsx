/**
 * The raw object of a resource record: `raw` is the object's JSON, base64-encoded (sent when the
 * payload is requested). Shown as an expandable tree (native <details>, keyboard-friendly) or as
 * indented JSON to read or copy.
 */
import { useState } from 'react';
import { CopyButton } from './copy-button.js';

export type Decoded = { ok: true; value: unknown; text: string } | { ok: false; error: string };

export function decodeRaw(raw: string): Decoded {
  try {
    const bytes = Uint8Array.from(atob(raw), (char) => char.charCodeAt(0));
    const value: unknown = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
    return { ok: true, value, text: JSON.stringify(value, null, 2) };
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
}

function summary(value: unknown): string {
  if (Array.isArray(value)) return `[${value.length}]`;
  if (value !== null && typeof value === 'object') return `{${Object.keys(value).length}}`;
  return '';
}

function Scalar({ value }: { value: unknown }) {
  const kind = value === null ? 'null' : typeof value;
  return <span className={`json-${kind}`}>{JSON.stringify(value)}</span>;
}

function Node({ name, value, depth }: { name: string; value: unknown; depth: number }) {
  if (value === null || typeof value !== 'object') {
    return (
      <li>
        <span className="json-key">{name}</span>: <Scalar value={value} />
      </li>
    );
  }
  const entries = Array.isArray(value)
    ? value.map((item, index) => [String(index), item] as const)
    : Object.entries(value);
  return (
    <li>
      <details open={depth < 2}>
        <summary>
          <span className="json-key">{name}</span> <span className="muted">{summary(value)}</span>
        </summary>
        <ul className="json-tree">
          {entries.map(([key, item]) => (
            <Node key={key} name={key} value={item} depth={depth + 1} />
          ))}
        </ul>
      </details>
    </li>
  );
}

export function RawObject({ raw }: { raw: string }) {
  const [mode, setMode] = useState<'tree' | 'json'>('tree');
  const decoded = decodeRaw(raw);
  if (!decoded.ok) {
    return <p className="notice notice-warning">The raw object could not be decoded: {decoded.error}</p>;
  }
  return (
    <section className="raw-object" aria-labelledby="raw-title">
      <div className="raw-toolbar">
        <h2 id="raw-title">Raw object</h2>
        <fieldset className="segmented">
          <legend className="visually-hidden">Show as</legend>
          <label>
            <input type="radio" name="raw-mode" checked={mode === 'tree'} onChange={() => setMode('tree')} />{' '}
            Tree
          </label>
          <label>
            <input type="radio" name="raw-mode" checked={mode === 'json'} onChange={() => setMode('json')} />{' '}
            JSON
          </label>
        </fieldset>
        <CopyButton text={decoded.text} label="Copy JSON" />
      </div>
      {mode === 'tree' ? (
        <ul className="json-tree json-root">
          <Node name="object" value={decoded.value} depth={0} />
        </ul>
      ) : (
        // biome-ignore lint/a11y/noNoninteractiveTabindex: long JSON scrolls; the keyboard must reach it
        <section className="raw-json" tabIndex={0} aria-label="Raw object as JSON">
          <pre>{decoded.text}</pre>
        </section>
      )}
    </section>
  );
}
