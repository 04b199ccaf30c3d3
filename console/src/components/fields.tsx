import type { ReactNode } from 'react';

/** A definition list of an object's fields (detail pages). */
export function Fields({ items }: { items: [label: string, value: ReactNode][] }) {
  return (
    <dl className="fields">
      {items.map(([label, value]) => (
        <div key={label} className="field">
          <dt>{label}</dt>
          <dd>
            {value === null || value === undefined || value === '' ? <span className="muted">—</span> : value}
          </dd>
        </div>
      ))}
    </dl>
  );
}
