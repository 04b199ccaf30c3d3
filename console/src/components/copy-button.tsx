import { useState } from 'react';

/**
 * Copies text to the clipboard. The Clipboard API exists only in secure contexts (https or
 * localhost); elsewhere the button says to select and copy by hand.
 */
export function CopyButton({ text, label = 'Copy' }: { text: string; label?: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  async function copy() {
    try {
      await navigator.clipboard.writeText(text);
      setState('copied');
    } catch {
      setState('failed');
    }
  }
  return (
    <span className="copy">
      <button type="button" className="button button-small" onClick={copy}>
        {label}
      </button>
      <span className="copy-status" role="status">
        {state === 'copied' && 'Copied'}
        {state === 'failed' && 'Copy failed: select the text and copy it by hand'}
      </span>
    </span>
  );
}
