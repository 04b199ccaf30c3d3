import type { Migration } from '../migrator.js';
import { tenancy } from './0001-tenancy.js';
import { clusters } from './0002-clusters.js';
import { vulnerabilities } from './0003-vulnerabilities.js';
import { identities } from './0004-identities.js';
import { runtime } from './0005-runtime.js';
import { tenantNames } from './0006-tenant-names.js';
import { findings } from './0007-findings.js';
import { integrations } from './0008-integrations.js';
import { knowledgeBase } from './0009-knowledge-base.js';
import { runtimeWindowSweep } from './0010-runtime-window-sweep.js';
import { rowLevelSecurity } from './0011-row-level-security.js';
import { cveReportCounts } from './0012-cve-report-counts.js';
import { identityDelta } from './0013-identity-delta.js';
import { imageVulnerabilityFindings } from './0014-image-vulnerability-findings.js';
import { listPages } from './0015-list-pages.js';
import { identityJson } from './0016-identity-json.js';
import { vulnerabilityStatistics } from './0017-vulnerability-statistics.js';
import { runtimeStateCompression } from './0018-runtime-state-compression.js';
import { identityStatistics } from './0019-identity-statistics.js';
import { derivedVulnerabilityKeys } from './0020-derived-vulnerability-keys.js';
import { listTotals } from './0022-list-totals.js';
import { baselineFingerprintJson } from './0023-baseline-fingerprint-json.js';
import { inventoryFillfactor } from './0024-inventory-fillfactor.js';
import { identityRiskJson } from './0025-identity-risk-json.js';
import { inventoryUpdateRoom } from './0027-inventory-update-room.js';
import { runtimeListTotals } from './0028-runtime-list-totals.js';
import { containerSearchText } from './0029-container-search-text.js';
import { identityJsonCompression } from './0030-identity-json-compression.js';
import { lookupKeyStatistics } from './0031-lookup-key-statistics.js';
import { scopeAccountsCachedPlan } from './0035-scope-accounts-cached-plan.js';
import { statisticsCatchUpSample } from './0036-statistics-catch-up-sample.js';
import { openSession } from './0040-open-session.js';
import { sessionLookup } from './0041-session-lookup.js';
import { packageSearchText } from './0042-package-search-text.js';
import { runtimeStateVersion } from './0043-runtime-state-version.js';
import { searchRows } from './0044-search-rows.js';
import { packageSortIndexes } from './0045-package-sort-indexes.js';
import { identityRiskLevelIndex } from './0046-identity-risk-level-index.js';
import { containerNamespaceNameIndex } from './0047-container-namespace-name-index.js';
import { packageSeverityTotals } from './0048-package-severity-totals.js';
import { openSessions } from './0049-open-sessions.js';
import { clusterListTotals } from './0050-cluster-list-totals.js';
import { searchFunctions } from './0051-search-functions.js';
import { identityNameNamespaceIndex } from './0052-identity-name-namespace-index.js';
import { searchWords } from './0053-search-words.js';
import { liveResourcesGeneration } from './0054-live-resources-generation.js';
import { packagesGeneration } from './0055-packages-generation.js';
import { containersGeneration } from './0056-containers-generation.js';
import { searchRowAddresses } from './0057-search-row-addresses.js';
import { findingsStatistics } from './0058-findings-statistics.js';
import { identityReportTallies } from './0059-identity-report-tallies.js';
import { identitySearchTexts } from './0060-identity-search-texts.js';
import { containerSearchTexts } from './0061-container-search-texts.js';
import { containerValuesDigest } from './0062-container-values-digest.js';
import { identityAccessTextsOnly } from './0063-identity-access-texts-only.js';
import { liveResourceKindTotals } from './0064-live-resource-kind-totals.js';
import { containerValueTotals } from './0065-container-value-totals.js';
import { containerSortsByName } from './0066-container-sorts-by-name.js';

/** In apply order. Never edit a released migration: add a new one. */
export const migrations: readonly Migration[] = [
  tenancy,
  clusters,
  vulnerabilities,
  identities,
  runtime,
  tenantNames,
  findings,
  integrations,
  knowledgeBase,
  runtimeWindowSweep,
  rowLevelSecurity,
  cveReportCounts,
  identityDelta,
  imageVulnerabilityFindings,
  listPages,
  identityJson,
  vulnerabilityStatistics,
  runtimeStateCompression,
  identityStatistics,
  derivedVulnerabilityKeys,
  listTotals,
  baselineFingerprintJson,
  inventoryFillfactor,
  identityRiskJson,
  inventoryUpdateRoom,
  runtimeListTotals,
  containerSearchText,
  identityJsonCompression,
  lookupKeyStatistics,
  scopeAccountsCachedPlan,
  statisticsCatchUpSample,
  openSession,
  sessionLookup,
  packageSearchText,
  runtimeStateVersion,
  searchRows,
  packageSortIndexes,
  identityRiskLevelIndex,
  containerNamespaceNameIndex,
  packageSeverityTotals,
  openSessions,
  clusterListTotals,
  searchFunctions,
  identityNameNamespaceIndex,
  searchWords,
  liveResourcesGeneration,
  packagesGeneration,
  containersGeneration,
  searchRowAddresses,
  findingsStatistics,
  identityReportTallies,
  identitySearchTexts,
  containerSearchTexts,
  containerValuesDigest,
  identityAccessTextsOnly,
  liveResourceKindTotals,
  containerValueTotals,
  containerSortsByName,
];
