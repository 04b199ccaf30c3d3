/**
 * The gate of tenant-level routes (/tenants/{tenant_id}/...): integrations and the tenant-wide
 * knowledge base are tenant settings, so they need a tenant-level role through a tenant-scoped key.
 *
 * - another tenant's id, or one that is not a UUID: 404, exactly like a missing tenant;
 * - the caller's own tenant without a tenant-level role of the needed rank (an account-scoped key,
 *   or a user with account-level roles only): 403. The tenant is not hidden from such callers:
 *   their accounts already name it as `parent_id`.
 */
import { type Actor, atLeast, type Role, roleOnTenant } from '../../http/actor.js';
import { ApiError } from '../../http/errors.js';

/** 404 unless the path names the caller's own tenant. */
export function requireOwnTenant(actor: Actor, tenantId: string): void {
  if (tenantId.toLowerCase() !== actor.tenantId.toLowerCase())
    throw new ApiError('not_found', 'tenant not found');
}

export function requireTenant(actor: Actor, tenantId: string, needed: Role): string {
  requireOwnTenant(actor, tenantId);
  if (!atLeast(roleOnTenant(actor), needed)) {
    throw new ApiError(
      'forbidden',
      `this requires the ${needed} role on the tenant, through a tenant-scoped key`,
    );
  }
  return actor.tenantId;
}
