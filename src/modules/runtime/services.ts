/**
 * The runtime module's services, wired from the app's dependencies. The LLM analyser is built
 * from the POSTURE_LLM_* settings (off unless base URL and model are set); a bad value stops the
 * server at boot like any other configuration error.
 */
import { type Config, ConfigError } from '../../config.js';
import type { Database } from '../../db/database.js';
import {
  createLlmAnalyser,
  type LlmAnalyserConfig,
  llmAnalyserConfigFromEnv,
} from '../../engines/runtime/index.js';
import { createRowBytesCache, type RowBytesCache, rowBytesOfTable } from '../../http/row-bytes-cache.js';
import type { AccountService } from '../accounts/service.js';
import type { ClusterService } from '../clusters/service.js';
import { createBaselineService } from './baseline-service.js';
import { createHttpObservationService } from './http-service.js';
import { createRuntimeIngestService, type RuntimePushListener } from './ingest-service.js';
import { createInsightService } from './insight-service.js';
import { createLlmQueue } from './llm-queue.js';
import { createRuntimeSettingsService } from './settings-service.js';
import { createStateCache } from './state-cache.js';
import { createWindowSweep } from './window-sweep.js';

function llmConfigOf(config: Config): LlmAnalyserConfig | null {
  try {
    return llmAnalyserConfigFromEnv({
      POSTURE_LLM_BASE_URL: config.POSTURE_LLM_BASE_URL,
      POSTURE_LLM_MODEL: config.POSTURE_LLM_MODEL,
      POSTURE_LLM_API_KEY: config.POSTURE_LLM_API_KEY,
      POSTURE_LLM_PROVIDER: config.POSTURE_LLM_PROVIDER,
      POSTURE_LLM_TIMEOUT_MS: config.POSTURE_LLM_TIMEOUT_MS?.toString(),
    });
  } catch (error) {
    throw new ConfigError(`invalid configuration:\n  ${(error as Error).message}`);
  }
}

export function createRuntimeServices(deps: {
  config: Config;
  db: Database;
  accounts: AccountService;
  clusters: ClusterService;
  /** run inside each runtime push's transaction (the findings evaluation) */
  runtimeListeners?: readonly RuntimePushListener[];
  /** list entries' bytes by row version, shared with other lists (LIST_ENTRY_CACHE_MB) */
  listEntries: RowBytesCache;
}) {
  const { config, db, accounts, clusters } = deps;
  const llm = llmConfigOf(config);
  const runtimeLlmQueue = llm ? createLlmQueue({ db, analyser: createLlmAnalyser(llm) }) : null;
  const runtimeStateCache = createStateCache({ maxChars: config.RUNTIME_STATE_CACHE_MB * 1024 * 1024 });
  const baselineFingerprintCache = createRowBytesCache({
    maxBytes: config.BASELINE_FINGERPRINT_CACHE_MB * 1024 * 1024,
  });
  const runtimeInsightCache = createRowBytesCache({
    maxBytes: config.RUNTIME_INSIGHT_CACHE_MB * 1024 * 1024,
  });
  return {
    runtimeIngest: createRuntimeIngestService({
      db,
      clusters,
      llmQueue: runtimeLlmQueue,
      stateCache: runtimeStateCache,
      listeners: deps.runtimeListeners ?? [],
    }),
    runtimeStateCache,
    runtimeInsights: createInsightService({ db, accounts, entries: runtimeInsightCache }),
    runtimeInsightCache,
    runtimeBaselines: createBaselineService({ db, accounts, fingerprints: baselineFingerprintCache }),
    baselineFingerprintCache,
    runtimeHttpObservations: createHttpObservationService({
      db,
      accounts,
      entries: rowBytesOfTable(deps.listEntries, 'runtime_http_observations'),
    }),
    runtimeSettings: createRuntimeSettingsService({ db, accounts }),
    runtimeLlmQueue,
    runtimeWindowSweep: createWindowSweep({
      db,
      llmQueue: runtimeLlmQueue,
      periodSeconds: config.RUNTIME_WINDOW_SWEEP_SECONDS,
    }),
  };
}

export type RuntimeServices = ReturnType<typeof createRuntimeServices>;
