/**
 * Adds a configured integration: the provider's config schema (GET .../integrations/providers)
 * becomes the form, one input per field by its type (string, url, integer, boolean, enum; secret
 * fields are password inputs), and the values are sent typed to POST .../integrations/external,
 * which validates them against the same schema.
 */
import { type FormEvent, useState } from 'react';
import { api } from '../api/client.js';
import type { ConfiguredIntegration, IntegrationConfigField, IntegrationProvider } from '../api/types.js';
import { ErrorMessage } from './error-message.js';
import { useSubmit } from './form-status.js';
import { Notice } from './status.js';

export function AddIntegration({
  base,
  providers,
  onAdded,
}: {
  base: string;
  providers: IntegrationProvider[];
  onAdded: () => void;
}) {
  const [type, setType] = useState(providers[0]?.type ?? '');
  const provider = providers.find((p) => p.type === type);
  const submit = useSubmit();

  async function add(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = event.currentTarget;
    const data = new FormData(form);
    const config: Record<string, string | number | boolean> = {};
    for (const field of provider?.config ?? []) {
      const value = String(data.get(`config.${field.key}`) ?? '');
      if (field.type === 'boolean') config[field.key] = value === 'on';
      else if (value === '') continue;
      // A number the server checks as such; anything that is not one is sent as typed, to be refused.
      else if (field.type === 'integer' && /^-?\d+$/.test(value)) config[field.key] = Number(value);
      else config[field.key] = value;
    }
    const name = String(data.get('name') ?? '').trim();
    const created = await submit.run(
      () => api<ConfiguredIntegration>('POST', `${base}/external`, { body: { name, type, config } }),
      `Integration ${name} added.`,
    );
    if (created) {
      form.reset();
      onAdded();
    }
  }

  return (
    <form className="card form-grid" onSubmit={add} aria-label="Add an integration">
      <div className="form-row">
        <label htmlFor="int-type">Provider</label>
        <select id="int-type" value={type} onChange={(e) => setType(e.target.value)}>
          {providers.map((p) => (
            <option key={p.type} value={p.type}>
              {p.name}
            </option>
          ))}
        </select>
      </div>
      <div className="form-row">
        <label htmlFor="int-name">Name</label>
        <input id="int-name" name="name" required maxLength={100} />
      </div>
      {provider?.config.map((field) => (
        <div className="form-row" key={`${type}:${field.key}`}>
          <label htmlFor={`int-${field.key}`}>
            {field.title}
            {field.required ? '' : ' (optional)'}
          </label>
          <ConfigInput field={field} />
          {field.description && (
            <p id={`int-${field.key}-hint`} className="hint">
              {field.description}
            </p>
          )}
        </div>
      ))}
      <div className="form-actions">
        <button type="submit" className="button button-primary" disabled={submit.busy}>
          Add
        </button>
      </div>
      {submit.error && <ErrorMessage error={submit.error} title="Not added" />}
      {submit.done && <Notice kind="success">{submit.done}</Notice>}
    </form>
  );
}

/** One field of a provider's config schema, by its type (string, url, integer, boolean, enum). */
function ConfigInput({ field }: { field: IntegrationConfigField }) {
  const id = `int-${field.key}`;
  const name = `config.${field.key}`;
  const describedBy = field.description ? `${id}-hint` : undefined;
  if (field.enum_values.length > 0) {
    return (
      <select id={id} name={name} required={field.required} aria-describedby={describedBy}>
        {!field.required && <option value="">—</option>}
        {field.enum_values.map((value) => (
          <option key={value} value={value}>
            {value}
          </option>
        ))}
      </select>
    );
  }
  if (field.type === 'boolean') {
    return <input id={id} name={name} type="checkbox" aria-describedby={describedBy} />;
  }
  const type = field.secret
    ? 'password'
    : field.type === 'url'
      ? 'url'
      : field.type === 'integer'
        ? 'number'
        : 'text';
  return (
    <input
      id={id}
      name={name}
      type={type}
      required={field.required}
      autoComplete="off"
      aria-describedby={describedBy}
    />
  );
}
