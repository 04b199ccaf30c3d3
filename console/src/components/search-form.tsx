import { type FormEvent, useId } from 'react';

/** The API's `q` search: submitted with Enter or the button, so each search is one URL. */
export function SearchForm({
  value,
  onSearch,
  label = 'Search',
  hint,
}: {
  value: string | undefined;
  onSearch: (q: string | undefined) => void;
  label?: string;
  hint?: string;
}) {
  const id = useId();
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const q = String(new FormData(event.currentTarget).get('q') ?? '').trim();
    onSearch(q || undefined);
  }
  return (
    <search>
      <form className="search-form" onSubmit={submit} key={value ?? ''}>
        <label htmlFor={id}>{label}</label>
        <input
          id={id}
          name="q"
          type="search"
          defaultValue={value ?? ''}
          aria-describedby={hint ? `${id}-hint` : undefined}
        />
        <button type="submit" className="button">
          Search
        </button>
        {value && (
          <button type="button" className="button button-quiet" onClick={() => onSearch(undefined)}>
            Clear
          </button>
        )}
        {hint && (
          <p id={`${id}-hint`} className="hint">
            {hint}
          </p>
        )}
      </form>
    </search>
  );
}
