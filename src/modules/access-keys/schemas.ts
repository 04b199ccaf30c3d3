import { Type } from 'typebox';
import { Id, NullableTimestamp, OffsetList, OffsetQuery, Timestamp } from '../../http/schemas.js';

export const AccessKeySchema = Type.Object({
  id: Type.String({ description: 'access key id (prefix pak_)' }),
  name: Type.String(),
  scope: Type.Enum(['tenant', 'account']),
  account_id: Type.Union([Type.String(), Type.Null()], { description: 'set for account-scoped keys' }),
  user_id: Type.String({ description: 'the user whose roles the key acts with' }),
  created_at: Timestamp,
  created_by: Type.Union([Type.String(), Type.Null()]),
  expires_at: NullableTimestamp,
  revoked_at: NullableTimestamp,
  last_used_at: NullableTimestamp,
});

export const CreatedAccessKeySchema = Type.Object({
  ...AccessKeySchema.properties,
  secret_key: Type.String({ description: 'shown once, here; only a keyed hash is stored' }),
});

export const CreateAccessKeyBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    scope: Type.Enum(['tenant', 'account']),
    account_id: Type.Optional(Type.String({ description: 'required when scope is account' })),
    expires_at: Type.Optional(Type.String({ format: 'date-time' })),
  },
  { additionalProperties: false },
);

export const AccessKeyParams = Type.Object({ id: Id });
export const AccessKeyListQuery = Type.Object(OffsetQuery);
export const AccessKeyList = OffsetList(AccessKeySchema);
