/**
 * Configured integrations (#26, #27 and the admin calls of DESIGN.md section 6): the provider
 * catalogue with the tenant's instances, and create / update / delete validated against the
 * provider's config schema. Secret values are sealed before they reach the database and every
 * answer shows the redaction marker in their place.
 */
import type { Database } from '../../db/database.js';
import type { Actor } from '../../http/actor.js';
import { ApiError } from '../../http/errors.js';
import { iso, isUuid, newId } from '../../http/ids.js';
import { type OffsetPage, tenantOffsetList } from '../../http/paging.js';
import { isUniqueViolation } from '../clusters/repository.js';
import { PROVIDERS, type Provider, providerOf } from './catalogue.js';
import { redactedConfig, validateConfig } from './config-validation.js';
import * as deliveries from './delivery-repository.js';
import * as repo from './repository.js';
import type { SecretBox } from './secret-box.js';
import { requireTenant } from './tenant-access.js';
import type { UrlPolicy } from './url-guard.js';

export interface IntegrationInput {
  name: string;
  type: string;
  config: Record<string, unknown>;
}

/** The additional data a sealed blob is bound to. */
export const sealContext = (tenantId: string, id: string) => `integration:${tenantId}/${id}`;

export function toApiIntegration(row: repo.IntegrationRow) {
  return {
    id: row.id,
    name: row.name,
    type: row.type,
    config: redactedConfig(providerOf(row.type), row.config, row.secret_keys),
  };
}

export function toApiProvider(provider: Provider, configured: repo.IntegrationRow[]) {
  return {
    name: provider.name,
    type: provider.type,
    auth_method: provider.auth_method,
    categories: provider.categories,
    configured: configured.map(toApiIntegration),
    config: provider.config.map((f) => ({
      title: f.title,
      key: f.key,
      type: f.type,
      enum_values: f.enum_values,
      description: f.description,
      required: f.required,
      secret: f.secret,
    })),
  };
}

function toApiDelivery(row: deliveries.DeliveryRow) {
  return {
    id: row.id,
    integration_id: row.integration_id,
    account_id: row.account_id,
    event: row.event,
    status: row.status,
    attempts: row.attempts,
    last_error: row.last_error,
    response_status: row.response_status,
    created_at: iso(row.created_at)!,
    last_attempt_at: iso(row.last_attempt_at),
    next_attempt_at: row.status === 'pending' ? iso(row.next_attempt_at) : null,
    delivered_at: iso(row.delivered_at),
    payload: row.payload,
  };
}

export function createIntegrationService(deps: { db: Database; box: SecretBox; urlPolicy: UrlPolicy }) {
  const { db, box, urlPolicy } = deps;

  async function requireIntegration(tenantId: string, id: string) {
    const row = isUuid(id) ? await repo.findIntegration(db, tenantId, id) : undefined;
    if (!row) throw new ApiError('not_found', 'integration not found');
    return row;
  }

  const conflictOnName = (error: unknown): never => {
    if (isUniqueViolation(error)) throw new ApiError('conflict', 'an integration with this name exists');
    throw error;
  };

  return {
    async listProviders(actor: Actor, tenantId: string, page: OffsetPage) {
      const tenant = requireTenant(actor, tenantId, 'viewer');
      const shown = PROVIDERS.slice(page.offset, page.offset + page.limit);
      const rows = await repo.listIntegrationsOfTypes(
        db,
        tenant,
        shown.map((p) => p.type),
      );
      const entries = shown.map((p) =>
        toApiProvider(
          p,
          rows.filter((row) => row.type === p.type),
        ),
      );
      return tenantOffsetList(entries, PROVIDERS.length, page);
    },

    async list(actor: Actor, tenantId: string, page: OffsetPage) {
      const tenant = requireTenant(actor, tenantId, 'viewer');
      const { rows, total } = await repo.listIntegrations(db, tenant, page);
      return tenantOffsetList(rows.map(toApiIntegration), total, page);
    },

    async get(actor: Actor, tenantId: string, id: string) {
      const tenant = requireTenant(actor, tenantId, 'viewer');
      return toApiIntegration(await requireIntegration(tenant, id));
    },

    async create(actor: Actor, tenantId: string, input: IntegrationInput) {
      const tenant = requireTenant(actor, tenantId, 'admin');
      const provider = providerOf(input.type)!; // the body schema admits catalogue types only
      const config = await validateConfig(provider, input.config, null, urlPolicy);
      const id = newId();
      const secretKeys = Object.keys(config.secrets);
      const row = await repo
        .insertIntegration(db, {
          tenantId: tenant,
          id,
          type: provider.type,
          name: input.name,
          config: config.plain,
          secretKeys,
          sealed: secretKeys.length > 0 ? box.seal(config.secrets, sealContext(tenant, id)) : null,
          createdBy: actor.userId,
        })
        .catch(conflictOnName);
      return toApiIntegration(row);
    },

    /** Replaces name and config; the type of an integration never changes. */
    async update(
      actor: Actor,
      tenantId: string,
      id: string,
      input: Omit<IntegrationInput, 'type'> & { type?: string },
    ) {
      const tenant = requireTenant(actor, tenantId, 'admin');
      const current = await requireIntegration(tenant, id);
      if (input.type !== undefined && input.type !== current.type) {
        throw ApiError.validation([
          {
            code: 'invalid_value',
            field: 'type',
            message: 'the type of an integration cannot change',
            param: 'body',
          },
        ]);
      }
      const provider = providerOf(current.type)!;
      const stored = {
        secrets: current.sealed_secrets ? box.open(current.sealed_secrets, sealContext(tenant, id)) : {},
      };
      const config = await validateConfig(provider, input.config, stored, urlPolicy);
      const secretKeys = Object.keys(config.secrets);
      const row = await repo
        .updateIntegration(db, {
          tenantId: tenant,
          id,
          type: current.type,
          name: input.name,
          config: config.plain,
          secretKeys,
          sealed: secretKeys.length > 0 ? box.seal(config.secrets, sealContext(tenant, id)) : null,
        })
        .catch(conflictOnName);
      if (!row) throw new ApiError('not_found', 'integration not found'); // deleted meanwhile
      return toApiIntegration(row);
    },

    async remove(actor: Actor, tenantId: string, id: string) {
      const tenant = requireTenant(actor, tenantId, 'admin');
      if (!isUuid(id) || !(await repo.deleteIntegration(db, tenant, id))) {
        throw new ApiError('not_found', 'integration not found');
      }
    },

    async listDeliveries(actor: Actor, tenantId: string, id: string, page: OffsetPage) {
      const tenant = requireTenant(actor, tenantId, 'viewer');
      const integration = await requireIntegration(tenant, id);
      const { rows, total } = await deliveries.listDeliveries(db, tenant, integration.id, page);
      return tenantOffsetList(rows.map(toApiDelivery), total, page);
    },
  };
}

export type IntegrationService = ReturnType<typeof createIntegrationService>;
