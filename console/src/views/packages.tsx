/**
 * Packages (name + version) of the account's scanned images with their vulnerability counts. The
 * filters offered are the API's facets (GET .../inventory_packages/facets): severity and true/false
 * facets get a list of values, the others a text box. Search, filters, sort and offset live in the
 * URL. Each package links to its rows of the CVE report.
 */
import type { InventoryPackage, OffsetList, PackageFacet } from '../api/types.js';
import { type Column, DataTable, formatSort, parseSort } from '../components/data-table.js';
import { ErrorMessage } from '../components/error-message.js';
import { FilterBar, formatFilters } from '../components/filter-bar.js';
import { PageHeader } from '../components/page-header.js';
import { OffsetPager } from '../components/pager.js';
import { SearchForm } from '../components/search-form.js';
import { SEVERITIES, YesNo } from '../components/severity.js';
import { Empty, Loading } from '../components/status.js';
import { useApi } from '../hooks/use-api.js';
import { intParam, useUrlQuery } from '../hooks/use-url-query.js';
import { accountPath } from '../paths.js';
import { Link } from '../router.js';
import type { ViewProps } from '../routes.js';

const DEFAULT_SORT = { field: 'name', direction: 'asc' } as const;

/** The values of a facet, by its `type` (docs/vulnerabilities-api.md, package facets). */
function facetValues(facet: PackageFacet): readonly string[] | undefined {
  if (facet.type === 'severity') return SEVERITIES;
  if (facet.type === 'boolean') return ['true', 'false'];
  return undefined;
}

const count = (field: keyof InventoryPackage, label: string): Column<InventoryPackage> => ({
  key: field,
  label,
  sort: field,
  className: 'numeric',
  render: (p) => {
    const value = p[field] as number;
    return value === 0 ? <span className="muted">0</span> : value;
  },
});

export default function PackagesView({ account }: ViewProps) {
  const [query, setQuery] = useUrlQuery();
  const sort = parseSort(query.sort, DEFAULT_SORT);
  const limit = intParam(query.limit, 100);
  const offset = intParam(query.offset, 0, 0, Number.MAX_SAFE_INTEGER);
  const facets = useApi<PackageFacet[]>(accountPath(account, '/inventory_packages/facets'));
  const { data, error, loading } = useApi<OffsetList<InventoryPackage>>(
    accountPath(account, '/inventory_packages'),
    { q: query.q, filters: query.filters, sort: query.sort, limit, offset },
  );

  const columns: Column<InventoryPackage>[] = [
    { key: 'name', label: 'Package', sort: 'name', render: (p) => <code>{p.name}</code> },
    { key: 'version', label: 'Version', sort: 'version', render: (p) => <code>{p.version}</code> },
    { key: 'in_use', label: 'In use', render: (p) => <YesNo value={p.in_use} /> },
    count('images_count', 'Images'),
    count('critical_count', 'Critical'),
    count('high_count', 'High'),
    count('medium_count', 'Medium'),
    count('low_count', 'Low'),
    {
      ...count('total_vulerabilities_count', 'Vulnerabilities'),
      render: (p) =>
        p.total_vulerabilities_count === 0 ? (
          <span className="muted">0</span>
        ) : (
          <Link
            to={accountPath(
              account,
              `/cves?filters=${encodeURIComponent(
                formatFilters([
                  ['package_name', p.name],
                  ['package_version', p.version],
                ]) ?? '',
              )}`,
            )}
            aria-label={`${p.total_vulerabilities_count} vulnerabilities of ${p.name} ${p.version}`}
          >
            {p.total_vulerabilities_count}
          </Link>
        ),
    },
  ];

  const facetList = facets.data ?? [];
  return (
    <>
      <PageHeader title="Packages">
        Packages found in the scanned images of {account.name}, with their vulnerabilities by severity.
      </PageHeader>
      <div className="card">
        <SearchForm
          value={query.q}
          onSearch={(q) => setQuery({ q })}
          label="Search"
          hint="Matches package name or version."
        />
        {facets.error && <ErrorMessage error={facets.error} title="The filters could not be loaded" />}
        {facetList.length > 0 && (
          <FilterBar
            keys={facetList.map((f) => f.id)}
            labels={Object.fromEntries(facetList.map((f) => [f.id, f.name]))}
            values={Object.fromEntries(
              facetList.flatMap((f) => (facetValues(f) ? [[f.id, facetValues(f)]] : [])),
            )}
            value={query.filters}
            onChange={(filters) => setQuery({ filters })}
          />
        )}
      </div>
      {error && <ErrorMessage error={error} />}
      {loading && <Loading what="Loading packages" />}
      {data && data.entries.length === 0 && (
        <Empty>
          {query.q || query.filters
            ? 'No package matches.'
            : 'No scanned image yet: push a scan report to see its packages.'}
        </Empty>
      )}
      {data && data.entries.length > 0 && (
        <>
          <DataTable
            caption="Packages"
            columns={columns}
            rows={data.entries}
            rowKey={(p) => p.id}
            sort={sort}
            onSort={(next) => setQuery({ sort: formatSort(next) })}
          />
          <OffsetPager
            offset={offset}
            limit={limit}
            total={data.total_count}
            hasMore={data.has_more}
            shown={data.entries.length}
            onOffset={(n) => setQuery({ offset: String(n) }, { keepPaging: true })}
            onLimit={(n) => setQuery({ limit: String(n) })}
          />
        </>
      )}
    </>
  );
}
