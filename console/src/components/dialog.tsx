/**
 * A modal dialog on the native <dialog> element: focus moves into it, Escape closes it, the page
 * behind is inert, and focus returns to the opener afterwards.
 */
import { type ReactNode, useEffect, useRef } from 'react';

export function Dialog({
  title,
  open,
  onClose,
  children,
}: {
  title: string;
  open: boolean;
  onClose: () => void;
  children: ReactNode;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);
  return (
    <dialog ref={ref} className="dialog" aria-labelledby="dialog-title" onClose={onClose}>
      <div className="dialog-header">
        <h2 id="dialog-title">{title}</h2>
        <button type="button" className="button button-quiet" onClick={onClose} aria-label="Close">
          ×
        </button>
      </div>
      {open && children}
    </dialog>
  );
}
