import type { ReactNode } from 'react';

export function Loading({ what = 'Loading' }: { what?: string }) {
  return (
    <p className="loading" role="status">
      <span className="spinner" aria-hidden="true" />
      {what}…
    </p>
  );
}

export function Empty({ children }: { children: ReactNode }) {
  return <p className="empty">{children}</p>;
}

export function Notice({
  kind = 'info',
  children,
}: {
  kind?: 'info' | 'success' | 'warning';
  children: ReactNode;
}) {
  return (
    <div className={`notice notice-${kind}`} role={kind === 'info' ? 'status' : 'alert'}>
      {children}
    </div>
  );
}
