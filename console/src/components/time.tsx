const format = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/** A timestamp in the reader's locale; the exact RFC 3339 value on hover and for machines. */
export function Time({ value, empty = '—' }: { value: string | null | undefined; empty?: string }) {
  if (!value) return <span className="muted">{empty}</span>;
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return <span>{value}</span>;
  return (
    <time dateTime={value} title={value}>
      {format.format(date)}
    </time>
  );
}
