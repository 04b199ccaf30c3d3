import { Type } from 'typebox';
import { OffsetList, OffsetQuery } from '../../http/schemas.js';
import { SEVERITIES } from '../../ingest/vulnerabilities/severity.js';

export const PACKAGE_FILTER_KEYS = ['name', 'version', 'in_use', 'severity'] as const;
export type PackageFilterKey = (typeof PACKAGE_FILTER_KEYS)[number];

export const PACKAGE_COUNT_FIELDS = [
  'critical_count',
  'high_count',
  'medium_count',
  'low_count',
  'negligible_count',
  'unspecified_count',
  'total_vulerabilities_count',
] as const;

export const PACKAGE_SORT_FIELDS = ['name', 'version', 'images_count', ...PACKAGE_COUNT_FIELDS] as const;
export type PackageSortField = (typeof PACKAGE_SORT_FIELDS)[number];

export const PACKAGE_SEARCH_FIELDS = ['name', 'version'] as const;

export interface PackageFacet {
  id: PackageFilterKey;
  name: string;
  category: string;
  type: string;
  default_value: string;
}

/**
 * #10: one facet per filter key of #9, and only those (a Record, so a new key without a facet
 * does not compile). `type` tells a client what a value looks like: `string` (exact match),
 * `boolean` (true or false) or `severity` (one of the severity levels). '' means "not applied".
 */
export const PACKAGE_FACETS: Record<PackageFilterKey, PackageFacet> = {
  name: { id: 'name', name: 'Package name', category: 'package', type: 'string', default_value: '' },
  version: { id: 'version', name: 'Package version', category: 'package', type: 'string', default_value: '' },
  severity: {
    id: 'severity',
    name: 'Has a vulnerability of severity',
    category: 'vulnerability',
    type: 'severity',
    default_value: '',
  },
  in_use: {
    id: 'in_use',
    name: 'Used by a running container',
    category: 'usage',
    type: 'boolean',
    default_value: '',
  },
};

export const InventoryPackageSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  version: Type.String(),
  in_use: Type.Boolean({ description: 'a live container of the account runs an image holding it' }),
  images_count: Type.Integer({ description: 'distinct scanned images holding it' }),
  critical_count: Type.Integer(),
  high_count: Type.Integer(),
  medium_count: Type.Integer(),
  low_count: Type.Integer(),
  negligible_count: Type.Integer(),
  unspecified_count: Type.Integer(),
  total_vulerabilities_count: Type.Integer({
    description: 'distinct vulnerabilities of this name + version (spelled as in the API description)',
  }),
});

export const PackageListQuery = Type.Object({
  sort: Type.Optional(
    Type.String({
      description: `field:asc|desc, field one of ${PACKAGE_SORT_FIELDS.join(', ')}; default name:asc`,
    }),
  ),
  q: Type.Optional(
    Type.String({ maxLength: 200, description: `substring of ${PACKAGE_SEARCH_FIELDS.join(', ')}` }),
  ),
  ...OffsetQuery,
  filters: Type.Optional(
    Type.String({
      description:
        `key:value,... with keys ${PACKAGE_FILTER_KEYS.join(', ')}. name and version match exactly; ` +
        `in_use takes true or false; severity (one of ${SEVERITIES.join(', ')}) keeps packages with at ` +
        'least one vulnerability of that severity. The same key twice means OR. See the facets.',
    }),
  ),
});

export const PackageList = OffsetList(InventoryPackageSchema);

export const PackageFacetSchema = Type.Object({
  id: Type.String({ description: 'the filter key of GET .../inventory_packages' }),
  name: Type.String(),
  category: Type.String(),
  type: Type.String({ description: 'string, boolean or severity' }),
  default_value: Type.String({ description: "'' when the filter is not applied by default" }),
});

export const PackageFacetList = Type.Array(PackageFacetSchema);
