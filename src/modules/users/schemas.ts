import { Type } from 'typebox';
import { Id, NullableTimestamp, OffsetList, OffsetQuery, Timestamp } from '../../http/schemas.js';

const Level = Type.Enum(['tenant', 'account'], {
  description: 'tenant: every account of the tenant (account_id is then the tenant id); account: one account',
});
const RoleName = Type.Enum(['admin', 'editor', 'viewer']);

export const RoleAssignmentSchema = Type.Object({
  account_id: Type.String(),
  account_name: Type.String(),
  level: Level,
  name: RoleName,
});

export const RoleAssignmentInput = Type.Object(
  {
    account_id: Type.Optional(
      Type.String({ description: 'the account; for level tenant, the tenant id or omitted' }),
    ),
    account_name: Type.Optional(Type.String({ description: 'ignored: the server knows the name' })),
    level: Level,
    name: RoleName,
  },
  { additionalProperties: false },
);

export const ReplaceRolesBody = Type.Object(
  { roles: Type.Array(RoleAssignmentInput, { maxItems: 1000 }) },
  { additionalProperties: false },
);

export const RolesResponse = Type.Object({ roles: Type.Array(RoleAssignmentSchema) });

export const MemberSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  email: Type.Union([Type.String(), Type.Null()]),
  locked: Type.Boolean(),
  last_login_at: NullableTimestamp,
  created_at: Timestamp,
  roles: Type.Array(RoleAssignmentSchema, { description: 'roles that apply to this account' }),
});

export const MemberList = OffsetList(MemberSchema);
export const MemberListQuery = Type.Object(OffsetQuery);
export const UserParams = Type.Object({ account_id: Id, user_id: Id });
