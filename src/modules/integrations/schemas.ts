import { Type } from 'typebox';
import { Id, NullableTimestamp, OffsetQuery, TenantOffsetList, Timestamp } from '../../http/schemas.js';
import { PROVIDER_TYPES } from './catalogue.js';
import { REDACTED } from './config-validation.js';

const IntegrationType = Type.Enum([...PROVIDER_TYPES], {
  description: 'An integration type of the provider catalogue (GET .../integrations/providers)',
});

const ConfigValues = Type.Record(Type.String(), Type.Union([Type.String(), Type.Number(), Type.Boolean()]), {
  description: `Integration-specific settings, per the provider's config schema. Secret values read as "${REDACTED}".`,
});

/** Configured integration (description: `id`, `name`, `type`, `config`, all required). */
export const IntegrationSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  type: Type.String(),
  config: ConfigValues,
});

const ConfigFieldSchema = Type.Object({
  title: Type.String(),
  key: Type.String(),
  type: Type.String({ description: 'string, url, integer, boolean or enum' }),
  enum_values: Type.Array(Type.String()),
  description: Type.String(),
  required: Type.Boolean(),
  secret: Type.Boolean({ description: 'stored encrypted; never returned in clear' }),
});

export const ProviderSchema = Type.Object({
  name: Type.String(),
  type: Type.String(),
  auth_method: Type.String(),
  categories: Type.Array(Type.String()),
  configured: Type.Array(IntegrationSchema),
  config: Type.Array(ConfigFieldSchema),
});

export const ProviderList = TenantOffsetList(ProviderSchema);
export const IntegrationList = TenantOffsetList(IntegrationSchema);

const Name = Type.String({ minLength: 1, maxLength: 200, pattern: '\\S' });
const ConfigBody = Type.Record(Type.String({ maxLength: 100 }), Type.Unknown(), {
  description: `Values per the provider's config schema. On update, "${REDACTED}" for a secret keeps the stored value.`,
  maxProperties: 50,
});

export const CreateIntegrationBody = Type.Object(
  { name: Name, type: IntegrationType, config: ConfigBody },
  { additionalProperties: false },
);

export const UpdateIntegrationBody = Type.Object(
  { name: Name, type: Type.Optional(IntegrationType), config: ConfigBody },
  {
    additionalProperties: false,
    description: 'Replaces name and config; `type`, when sent, must be unchanged.',
  },
);

export const DeliverySchema = Type.Object({
  id: Type.String(),
  integration_id: Type.String(),
  account_id: Type.String(),
  event: Type.String({ description: 'finding_groups.opened' }),
  status: Type.Enum(['pending', 'delivered', 'failed']),
  attempts: Type.Integer(),
  last_error: Type.Union([Type.String(), Type.Null()]),
  response_status: Type.Union([Type.Integer(), Type.Null()]),
  created_at: Timestamp,
  last_attempt_at: NullableTimestamp,
  next_attempt_at: NullableTimestamp,
  delivered_at: NullableTimestamp,
  payload: Type.Record(Type.String(), Type.Unknown(), { description: 'the JSON body sent' }),
});
export const DeliveryList = TenantOffsetList(DeliverySchema);

export const TenantParams = Type.Object({ tenant_id: Id });
export const IntegrationParams = Type.Object({ tenant_id: Id, integration_id: Id });
export const TenantListQuery = Type.Object(OffsetQuery);
