/**
 * Edits the API's `filters` parameter (`key:value,key:value`; the same key twice means either
 * value, different keys must all match; `\,` escapes a comma in a value) as removable chips.
 * The parameter goes into the URL exactly as the API reads it. Keys with a closed set of values
 * (`values`, e.g. severities or true/false) offer them in a list instead of a text box.
 */
import { type FormEvent, useId, useState } from 'react';

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
  labels = {},
  values = {},
}: {
  keys: readonly string[];
  value: string | undefined;
  onChange: (filters: string | undefined) => void;
  /** a readable name per key (the facets' `name`); the key itself otherwise */
  labels?: Partial<Record<string, string>>;
  /** the values a key can take, when they form a closed set */
  values?: Partial<Record<string, readonly (string | { value: string; label: string })[]>>;
}) {
  const id = useId();
  const filters = parseFilters(value);
  const [key, setKey] = useState<string>(keys[0] ?? '');
  const choices = values[key];

  function add(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const text = String(form.get('value') ?? '').trim();
    if (!key || !text) return;
    const exists = filters.some(([k, v]) => k === key && v === text);
    onChange(formatFilters(exists ? filters : [...filters, [key, text]]));
  }

  return (
    <div className="filter-bar">
      <form className="filter-form" onSubmit={add} key={value ?? ''}>
        <label htmlFor={`${id}-key`}>Filter</label>
        <select id={`${id}-key`} name="key" value={key} onChange={(event) => setKey(event.target.value)}>
          {keys.map((k) => (
            <option key={k} value={k}>
              {labels[k] ?? k}
            </option>
          ))}
        </select>
        <label htmlFor={`${id}-value`} className="visually-hidden">
          Filter value
        </label>
        {choices ? (
          <select id={`${id}-value`} name="value" key={key}>
            {choices.map((choice) => {
              const option = typeof choice === 'string' ? { value: choice, label: choice } : choice;
              return (
                <option key={option.value} value={option.value}>
                  {option.label}
                </option>
              );
            })}
          </select>
        ) : (
          <input id={`${id}-value`} name="value" type="text" placeholder="exact value" key={key} />
        )}
        <button type="submit" className="button">
          Add filter
        </button>
      </form>
      {filters.length > 0 && (
        <ul className="chips" aria-label="Active filters">
          {filters.map(([key, text], index) => (
            <li key={`${key}:${text}`} className="chip">
              <span>
                {labels[key] ?? key}: <strong>{text}</strong>
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
