/**
 * Edits the API's `filters` parameter (`key:value,key:value`; the same key twice means either
 * value, different keys must all match; `\,` escapes a comma in a value) as removable chips.
 * The parameter goes into the URL exactly as the API reads it.
 */
import { type FormEvent, useId } from 'react';

export type Filter = [key: string, value: string];

export function parseFilters(text: string | undefined): Filter[] {
  if (!text) return [];
  const parts: string[] = [];
  let current = '';
  for (let index = 0; index < text.length; index++) {
    const char = text[index];
    if (char === '\\' && text[index + 1] === ',') {
      current += ',';
      index++;
    } else if (char === ',') {
      parts.push(current);
      current = '';
    } else {
      current += char;
    }
  }
  parts.push(current);
  return parts.flatMap((part) => {
    const colon = part.indexOf(':');
    return colon > 0 ? [[part.slice(0, colon), part.slice(colon + 1)] as Filter] : [];
  });
}

export function formatFilters(filters: Filter[]): string | undefined {
  if (filters.length === 0) return undefined;
  return filters.map(([key, value]) => `${key}:${value.replaceAll(',', '\\,')}`).join(',');
}

export function FilterBar({
  keys,
  value,
  onChange,
}: {
  keys: readonly string[];
  value: string | undefined;
  onChange: (filters: string | undefined) => void;
}) {
  const id = useId();
  const filters = parseFilters(value);

  function add(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const key = String(form.get('key') ?? '');
    const text = String(form.get('value') ?? '').trim();
    if (!key || !text) return;
    const exists = filters.some(([k, v]) => k === key && v === text);
    onChange(formatFilters(exists ? filters : [...filters, [key, text]]));
  }

  return (
    <div className="filter-bar">
      <form className="filter-form" onSubmit={add} key={value ?? ''}>
        <label htmlFor={`${id}-key`}>Filter</label>
        <select id={`${id}-key`} name="key" defaultValue={keys[0]}>
          {keys.map((key) => (
            <option key={key} value={key}>
              {key}
            </option>
          ))}
        </select>
        <label htmlFor={`${id}-value`} className="visually-hidden">
          Filter value
        </label>
        <input id={`${id}-value`} name="value" type="text" placeholder="exact value" />
        <button type="submit" className="button">
          Add filter
        </button>
      </form>
      {filters.length > 0 && (
        <ul className="chips" aria-label="Active filters">
          {filters.map(([key, text], index) => (
            <li key={`${key}:${text}`} className="chip">
              <span>
                {key}: <strong>{text}</strong>
              </span>
              <button
                type="button"
                className="chip-remove"
                aria-label={`Remove filter ${key}: ${text}`}
                onClick={() => onChange(formatFilters(filters.filter((_, i) => i !== index)))}
              >
                ×
              </button>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
