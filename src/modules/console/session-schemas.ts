import { Type } from 'typebox';
import { CONSOLE_HEADER } from '../../http/csrf.js';
import { Timestamp } from '../../http/schemas.js';

export const ConsoleHeaders = Type.Object({
  [CONSOLE_HEADER]: Type.Optional(
    Type.String({
      description:
        'must be 1: a page of another origin cannot send this header, so a forged request is refused with 403',
    }),
  ),
});

export const ConsoleSessionResponse = Type.Object({
  expires_at: Timestamp,
  tenant_id: Type.String(),
  user_id: Type.String(),
  access_key_id: Type.String(),
  key_scope: Type.Enum(['tenant', 'account']),
  key_account_id: Type.Union([Type.String(), Type.Null()], {
    description: 'the one account an account-scoped key may act on',
  }),
});

const RoleName = Type.Enum(['viewer', 'editor', 'admin']);

/** GET /console/session: who the caller is and what its key lets it do, so pages can hide actions. */
export const ConsoleCaller = Type.Object({
  tenant_id: Type.String(),
  user_id: Type.String(),
  access_key_id: Type.String(),
  key_scope: Type.Enum(['tenant', 'account']),
  key_account_id: Type.Union([Type.String(), Type.Null()], {
    description: 'the one account an account-scoped key may act on',
  }),
  tenant_role: Type.Union([RoleName, Type.Null()], {
    description: 'the role on every account of the tenant (only through a tenant-scoped key)',
  }),
  account_roles: Type.Array(Type.Object({ account_id: Type.String(), role: RoleName }), {
    description:
      'roles held on single accounts, narrowed to the key; the role on an account is the stronger of this and tenant_role',
  }),
});
