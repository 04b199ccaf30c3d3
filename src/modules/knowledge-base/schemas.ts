import { Type } from 'typebox';
import { Id, OffsetQuery, TenantOffsetList } from '../../http/schemas.js';

export const CollectionName = Type.String({
  minLength: 1,
  maxLength: 128,
  pattern: '^[A-Za-z0-9][A-Za-z0-9._-]*$',
  description: 'letters, digits, `.`, `_` and `-`, starting with a letter or digit; unique in the tenant',
});

/** #28: a tenant offset list whose entries are collection names, in name order. */
export const CollectionList = TenantOffsetList(Type.String());
export const CollectionListQuery = Type.Object({
  limit: OffsetQuery.limit,
  offset: OffsetQuery.offset,
});
export const CreateCollectionBody = Type.Object({ name: CollectionName }, { additionalProperties: false });
export const CollectionSchema = Type.Object({ name: Type.String() });

export const TenantCollectionsParams = Type.Object({ tenant_id: Id });
export const AccountCollectionsParams = Type.Object({ tenant_id: Id, account_id: Id });
export const TenantCollectionParams = Type.Object({
  tenant_id: Id,
  name: Type.String({ minLength: 1, maxLength: 200 }),
});
export const AccountCollectionParams = Type.Object({
  tenant_id: Id,
  account_id: Id,
  name: Type.String({ minLength: 1, maxLength: 200 }),
});
