/**
 * What each registry type requires. A field of another type must be absent (an empty string
 * counts as absent: clients generated from the description send every field).
 */
import { ApiError, type ValidationDetail } from '../../http/errors.js';
import type { REGISTRY_TYPES } from './schemas.js';

export type RegistryType = (typeof REGISTRY_TYPES)[number];

const FIELDS = [
  'repository_name',
  'cloudA_account_id',
  'cloudA_region',
  'cloudB_location',
  'cloudB_project_id',
  'cloudB_project_number',
] as const;
export type RegistryField = (typeof FIELDS)[number];
export type RegistryInput = { type: RegistryType } & Partial<Record<RegistryField, string>>;
export type RegistryFields = Record<RegistryField, string | null>;

interface Rule {
  pattern: RegExp;
  hint: string;
}

const REPOSITORY: Rule = {
  pattern: /^[a-z0-9]+(?:(?:[._-]|__|\/)[a-z0-9]+)*$/,
  hint: 'a repository path such as team/api',
};

const RULES: Record<
  RegistryType,
  { required: Partial<Record<RegistryField, Rule>>; optional: Partial<Record<RegistryField, Rule>> }
> = {
  cloudA: {
    required: {
      repository_name: REPOSITORY,
      cloudA_account_id: { pattern: /^\d{12}$/, hint: 'a 12-digit account id' },
      cloudA_region: { pattern: /^[a-z]{2}(?:-[a-z]+)+-\d{1,2}$/, hint: 'a region such as eu-west-1' },
    },
    optional: {},
  },
  cloudB: {
    required: {
      repository_name: REPOSITORY,
      cloudB_project_id: {
        pattern: /^[a-z][a-z0-9-]{4,28}[a-z0-9]$/,
        hint: 'a project id such as acme-prod-123',
      },
      cloudB_location: {
        pattern: /^[a-z]+(?:-[a-z]+\d{0,2})?$/,
        hint: 'a location such as europe-west1 or us',
      },
    },
    optional: { cloudB_project_number: { pattern: /^\d{1,20}$/, hint: 'digits' } },
  },
  generic: {
    required: {
      repository_name: {
        pattern:
          /^[a-z0-9](?:[a-z0-9.-]*[a-z0-9])?(?::\d{1,5})?(?:\/[a-z0-9]+(?:(?:[._-]|__|\/)[a-z0-9]+)*)?$/,
        hint: 'a registry address such as registry.example.com:5000/team',
      },
    },
    optional: {},
  },
};

/** The stored fields of a valid request; a 400 naming every bad field otherwise. */
export function validateRegistry(input: RegistryInput): RegistryFields {
  const rules = RULES[input.type];
  const details: ValidationDetail[] = [];
  const fields = {} as RegistryFields;
  for (const name of FIELDS) {
    const value = input[name] === '' ? undefined : input[name];
    const rule = rules.required[name] ?? rules.optional[name];
    fields[name] = value ?? null;
    const fail = (code: ValidationDetail['code'], message: string) =>
      details.push({ code, field: name, message, param: 'body' });
    if (!rule) {
      if (value !== undefined) fail('invalid_value', `does not apply to ${input.type} registries`);
    } else if (value === undefined) {
      if (rules.required[name]) fail('required', `is required for ${input.type} registries`);
    } else if (!rule.pattern.test(value)) {
      fail('invalid_format', `must be ${rule.hint}`);
    }
  }
  if (details.length > 0) throw ApiError.validation(details);
  return fields;
}
