/**
 * Checks a configured integration's `config` against its provider's schema and splits it into the
 * plain values (stored as JSON) and the secret ones (sealed). Every bad key gets its own
 * validation detail named `config.<key>`; nothing is stored unless all of them pass.
 *
 * Secrets on update: sending the redaction marker back (what a GET returned) keeps the stored
 * value, so a client can edit a name or a URL without knowing the secret.
 */
import { ApiError, type ValidationDetail } from '../../http/errors.js';
import type { ConfigField, Provider } from './catalogue.js';
import { checkOutboundUrl, type UrlPolicy, UrlRefused, UrlSyntaxError } from './url-guard.js';

/** What every response shows in place of a secret value. */
export const REDACTED = '********';

export type PlainValue = string | number | boolean;

export interface ValidatedConfig {
  plain: Record<string, PlainValue>;
  secrets: Record<string, string>;
}

const MAX_TEXT = 2048;

const detail = (key: string, code: ValidationDetail['code'], message: string): ValidationDetail => ({
  code,
  field: `config.${key}`,
  message,
  param: 'body',
});

/** Empty strings and nulls mean "not given": clients generated from a schema send every key. */
const isAbsent = (value: unknown) => value === undefined || value === null || value === '';

function checkValue(field: ConfigField, value: unknown): ValidationDetail | null {
  switch (field.type) {
    case 'integer':
      return Number.isInteger(value) ? null : detail(field.key, 'invalid_type', 'must be an integer');
    case 'boolean':
      return typeof value === 'boolean' ? null : detail(field.key, 'invalid_type', 'must be a boolean');
    case 'enum':
      if (typeof value !== 'string') return detail(field.key, 'invalid_type', 'must be a string');
      return field.enum_values.includes(value)
        ? null
        : detail(field.key, 'invalid_value', `must be one of ${field.enum_values.join(', ')}`);
    default:
      if (typeof value !== 'string') return detail(field.key, 'invalid_type', 'must be a string');
      if (value.length > MAX_TEXT) return detail(field.key, 'out_of_range', `at most ${MAX_TEXT} characters`);
      if (field.minLength && value.length < field.minLength)
        return detail(field.key, 'out_of_range', `at least ${field.minLength} characters`);
      return null;
  }
}

async function checkUrl(
  field: ConfigField,
  value: string,
  policy: UrlPolicy,
): Promise<ValidationDetail | null> {
  try {
    await checkOutboundUrl(value, policy);
    return null;
  } catch (error) {
    if (!(error instanceof UrlRefused)) throw error;
    const code = error instanceof UrlSyntaxError ? 'invalid_format' : 'invalid_value';
    // The message may quote the host; for a secret URL (it embeds a token) say less.
    return detail(
      field.key,
      code,
      field.secret && code === 'invalid_value' ? 'this URL may not be called' : error.message,
    );
  }
}

export async function validateConfig(
  provider: Provider,
  raw: Record<string, unknown>,
  stored: { secrets: Record<string, string> } | null,
  policy: UrlPolicy,
): Promise<ValidatedConfig> {
  const details: ValidationDetail[] = [];
  const known = new Map(provider.config.map((f) => [f.key, f]));
  for (const key of Object.keys(raw)) {
    if (!known.has(key)) details.push(detail(key, 'unknown_field', `not a config key of ${provider.type}`));
  }
  const result: ValidatedConfig = { plain: {}, secrets: {} };
  for (const field of provider.config) {
    let value = raw[field.key];
    if (field.secret && value === REDACTED) {
      value = stored?.secrets[field.key];
      if (value === undefined) {
        details.push(detail(field.key, 'required', 'no stored value to keep: send the secret itself'));
        continue;
      }
    }
    if (isAbsent(value)) {
      if (field.required) details.push(detail(field.key, 'required', `${field.title} is required`));
      continue;
    }
    const problem =
      checkValue(field, value) ??
      (field.type === 'url' ? await checkUrl(field, value as string, policy) : null);
    if (problem) details.push(problem);
    else if (field.secret) result.secrets[field.key] = value as string;
    else result.plain[field.key] = value as PlainValue;
  }
  if (details.length > 0) throw ApiError.validation(details);
  return result;
}

/** The config as every response shows it: plain values, and the marker for each stored secret. */
export function redactedConfig(
  provider: Provider | undefined,
  plain: Record<string, PlainValue>,
  secretKeys: string[],
) {
  const shown: Record<string, PlainValue> = { ...plain };
  for (const key of secretKeys) shown[key] = REDACTED;
  // Keep the provider's key order, so two reads of one integration print alike.
  if (!provider) return shown;
  const ordered: Record<string, PlainValue> = {};
  for (const field of provider.config) {
    const value = shown[field.key];
    if (value !== undefined) ordered[field.key] = value;
  }
  return ordered;
}
