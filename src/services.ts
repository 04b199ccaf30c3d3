/** Wires the services of every module from the app's dependencies (factories, no container). */
import type { AppDeps } from './app.js';
import { createRowBytesCache, rowBytesOfTable } from './http/row-bytes-cache.js';
import { createAccessKeyService } from './modules/access-keys/service.js';
import { createAccountService } from './modules/accounts/service.js';
import { createLoginThrottle } from './modules/auth/login-throttle.js';
import { createAuthService } from './modules/auth/service.js';
import { createClusterActionService } from './modules/cluster-actions/service.js';
import { createKubernetesIngestService } from './modules/clusters/ingest-service.js';
import { createClusterService } from './modules/clusters/service.js';
import { createFindingsEvaluator } from './modules/findings/evaluator.js';
import { createFindingService } from './modules/findings/service.js';
import { createIdentitiesPushListener } from './modules/identities/recompute.js';
import { createIdentityService } from './modules/identities/service.js';
import { enqueueFindingGroupDeliveries } from './modules/integrations/finding-listener.js';
import { createIntegrationServices } from './modules/integrations/services.js';
import { createInventoryContainerService } from './modules/inventory-containers/service.js';
import { createKnowledgeBaseService } from './modules/knowledge-base/service.js';
import { SearchedMatches } from './modules/list-totals/searched-matches.js';
import { createRbacService } from './modules/rbac/service.js';
import { createRegistryService } from './modules/registries/service.js';
import { createResourceService } from './modules/resources/service.js';
import { createRuntimeServices } from './modules/runtime/services.js';
import { createUserService } from './modules/users/service.js';
import { createVulnerabilityServices } from './modules/vulnerabilities/services.js';
import { refreshCveUsageOnPush } from './modules/vulnerabilities/usage-listener.js';

export function createServices({ config, db, pepper }: AppDeps) {
  const accounts = createAccountService({
    db,
    unsafeDisableScoping: config.POSTURE_UNSAFE_DISABLE_APP_SCOPING,
  });
  const identityTextCache = createRowBytesCache({ maxBytes: config.IDENTITY_TEXT_CACHE_MB * 1024 * 1024 });
  const listEntryCache = createRowBytesCache({ maxBytes: config.LIST_ENTRY_CACHE_MB * 1024 * 1024 });
  // The matches of recent searches of the containers and the packages, one budget of ids for both.
  const searchedMatches =
    config.SEARCHED_MATCHES_MAX_IDS > 0
      ? new SearchedMatches({ maxIds: config.SEARCHED_MATCHES_MAX_IDS })
      : undefined;
  const clusters = createClusterService({ db, accounts });
  // Findings follow every ingestion that can change them, inside its transaction (after the
  // identities recompute, which identity findings read); new and reopened groups are queued for
  // the integrations' deliveries.
  const findingsEvaluator = createFindingsEvaluator({ listeners: [enqueueFindingGroupDeliveries] });
  return {
    auth: createAuthService({
      db,
      pepper,
      sessionTtlSeconds: config.SESSION_TTL,
      throttle: createLoginThrottle(config.LOGIN_MAX_FAILURES, config.LOGIN_FAILURE_WINDOW_SECONDS),
    }),
    accounts,
    accessKeys: createAccessKeyService({ db, pepper }),
    users: createUserService({ db, accounts }),
    clusters,
    kubernetesIngest: createKubernetesIngestService({
      db,
      clusters,
      clusterListeners: [findingsEvaluator.onClusterPush],
      listeners: [
        refreshCveUsageOnPush,
        createIdentitiesPushListener([findingsEvaluator.onIdentitiesChanged]),
        findingsEvaluator.onKubernetesPush,
      ],
    }),
    resources: createResourceService({
      db,
      accounts,
      clusters,
      entries: rowBytesOfTable(listEntryCache, 'cluster_resources'),
      bookmarksFromOffset: config.LIST_BOOKMARKS_FROM_OFFSET,
    }),
    inventoryContainers: createInventoryContainerService({
      db,
      accounts,
      entries: rowBytesOfTable(listEntryCache, 'inventory_containers'),
      bookmarksFromOffset: config.LIST_BOOKMARKS_FROM_OFFSET,
      searches: searchedMatches,
    }),
    listEntryCache,
    registries: createRegistryService({ db, accounts }),
    clusterActions: createClusterActionService({ db, clusters }),
    identities: createIdentityService({ db, accounts, texts: identityTextCache }),
    identityTextCache,
    rbac: createRbacService({ db, accounts }),
    ...createRuntimeServices({
      config,
      db,
      accounts,
      clusters,
      runtimeListeners: [findingsEvaluator.onRuntimePush],
      listEntries: listEntryCache,
    }),
    ...createVulnerabilityServices({
      config,
      db,
      accounts,
      clusters,
      listEntries: listEntryCache,
      searchedMatches,
      scanListeners: [findingsEvaluator.onScanPush],
      kevListeners: [findingsEvaluator.onKevChange],
    }),
    findings: createFindingService({
      db,
      accounts,
      entries: rowBytesOfTable(listEntryCache, 'finding_groups'),
    }),
    ...createIntegrationServices({ config, db, pepper }),
    knowledgeBase: createKnowledgeBaseService({ db, accounts }),
  };
}

export type Services = ReturnType<typeof createServices>;
