import { Type } from 'typebox';
import { Id, OffsetList, OffsetQuery, Timestamp } from '../../http/schemas.js';

export const AccountSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  parent_id: Type.String({ description: 'the tenant id' }),
  created_at: Timestamp,
});

export const AccountListQuery = Type.Object({
  parent_id: Type.Optional(Type.String({ description: 'tenant id; other tenants yield an empty list' })),
  ...OffsetQuery,
});

export const AccountList = OffsetList(AccountSchema);
export const AccountIdParams = Type.Object({ account_id: Id });
