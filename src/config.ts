/**
 * Server configuration, read from environment variables once at boot and validated.
 * An invalid value stops the process with a message naming the variable (see docs/configuration.md).
 *
 * @example
 *   const config = loadConfig(process.env); // throws ConfigError on a bad value
 */
import { type Static, Type } from 'typebox';
import { Value } from 'typebox/value';

const ConfigSchema = Type.Object({
  HOST: Type.String({ minLength: 1, default: '127.0.0.1' }),
  PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 8080 }),
  /** PostgreSQL connection string; when unset the embedded PGlite store is used. */
  DATABASE_URL: Type.Optional(Type.String({ minLength: 1 })),
  /**
   * PostgreSQL connection string of the schema's owner, for migrations only; the server then grants
   * DATABASE_URL's role the rights it needs. Unset: migrations run through DATABASE_URL.
   */
  DATABASE_MIGRATION_URL: Type.Optional(Type.String({ minLength: 1 })),
  /**
   * 'on': the server refuses to start when DATABASE_URL's role could bypass row-level security
   * (superuser, BYPASSRLS, owner of a table). 'off' only for a single-role development setup; it
   * is logged as a warning at every start (docs/security.md, "Row-level security").
   */
  DATABASE_RLS_CHECK: Type.Enum(['on', 'off'], { default: 'on' }),
  /**
   * TEST ONLY, refused unless NODE_ENV=test: the services' own account and tenant checks accept any
   * account of any tenant, so the isolation matrix proves the row-level security policies alone.
   */
  POSTURE_UNSAFE_DISABLE_APP_SCOPING: Type.Boolean({ default: false }),
  DATABASE_POOL_SIZE: Type.Integer({ minimum: 1, maximum: 200, default: 10 }),
  /**
   * Statements each PostgreSQL connection keeps prepared, parsed once and planned once where
   * PostgreSQL finds that no dearer (docs/performance.md, "Fix 37"). 0 sends every statement
   * unnamed: for a connection pooler in transaction mode that does not carry prepared statements
   * (PgBouncer before 1.21, or with max_prepared_statements = 0).
   */
  DATABASE_PREPARED_STATEMENTS: Type.Integer({ minimum: 0, maximum: 1000, default: 100 }),
  /** Where PGlite keeps its files (and the generated server secret); `:memory:` for a throwaway store. */
  DATA_DIR: Type.String({ minLength: 1, default: './data' }),
  /** Keyed-hash pepper for access-key secrets, at least 32 characters. Generated into DATA_DIR when unset. */
  POSTURE_SECRET: Type.Optional(Type.String({ minLength: 32 })),
  /** Session token lifetime in seconds (existing clients cache tokens for about 4 hours). */
  SESSION_TTL: Type.Integer({ minimum: 60, maximum: 30 * 24 * 3600, default: 4 * 3600 }),
  /** Requests per minute allowed per session token (or per client address when unauthenticated). 0 disables. */
  RATE_LIMIT_PER_MINUTE: Type.Integer({ minimum: 0, default: 1200 }),
  /** Failed authentications per access key id or client address within the window before 429. */
  LOGIN_MAX_FAILURES: Type.Integer({ minimum: 1, default: 10 }),
  LOGIN_FAILURE_WINDOW_SECONDS: Type.Integer({ minimum: 1, default: 300 }),
  LOG_LEVEL: Type.Enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], { default: 'info' }),
  /** Create the demo tenant (with the sample data) on the first start of an empty store. */
  DEMO: Type.Boolean({ default: true }),
  /** Seconds to wait for in-flight requests on shutdown. */
  SHUTDOWN_GRACE_SECONDS: Type.Integer({ minimum: 1, default: 10 }),
  /** Name of the operator's tenant, whose tenant admins may import EPSS/KEV feeds over HTTP (POST /feeds/import). */
  FEED_ADMIN_TENANT: Type.Optional(Type.String({ minLength: 1 })),
  /** The optional LLM analyser of runtime insights (docs/runtime-events.md section 8); off unless base URL and model are set. */
  POSTURE_LLM_BASE_URL: Type.Optional(Type.String({ minLength: 1 })),
  POSTURE_LLM_MODEL: Type.Optional(Type.String({ minLength: 1 })),
  POSTURE_LLM_API_KEY: Type.Optional(Type.String({ minLength: 1 })),
  POSTURE_LLM_PROVIDER: Type.Optional(Type.String({ minLength: 1 })),
  POSTURE_LLM_TIMEOUT_MS: Type.Optional(Type.Integer({ minimum: 100, maximum: 999_999 })),
  /** Seconds between runs of the sweep that closes runtime learning windows on the wall clock; 0 turns it off. */
  RUNTIME_WINDOW_SWEEP_SECONDS: Type.Integer({ minimum: 0, maximum: 86_400, default: 60 }),
  /**
   * MiB of runtime workload states (their JSON size) a server may keep in memory between pushes, so
   * an agent's next push need not read and parse them again (docs/runtime-api.md); 0 keeps none.
   * 16 by default: a median 7% less server CPU per event in alternating rounds, for about 10 MiB
   * more resident once idle (docs/performance.md, "Fix 50").
   */
  RUNTIME_STATE_CACHE_MB: Type.Integer({ minimum: 0, maximum: 4096, default: 16 }),
  /**
   * MiB of baseline fingerprints' response bytes a server keeps between pages of latest baselines,
   * so a page reads from PostgreSQL only its rows' versions (row-bytes-cache.ts); 0 keeps none.
   */
  BASELINE_FINGERPRINT_CACHE_MB: Type.Integer({ minimum: 0, maximum: 4096, default: 16 }),
  /**
   * MiB of runtime insight list entries' response bytes a server keeps between pages of insights,
   * so a page reads from PostgreSQL only its rows' versions (row-bytes-cache.ts); 0 keeps none.
   */
  RUNTIME_INSIGHT_CACHE_MB: Type.Integer({ minimum: 0, maximum: 4096, default: 8 }),
  /**
   * MiB of identities' response bytes a server keeps between identities pages, so a page reads
   * from PostgreSQL only the versions of what each identity is made from (row-bytes-cache.ts);
   * 0 keeps none.
   */
  IDENTITY_TEXT_CACHE_MB: Type.Integer({ minimum: 0, maximum: 4096, default: 16 }),
  /**
   * MiB of list entries' response bytes (inventory containers) a server keeps between pages, so a
   * page reads from PostgreSQL only its rows' ids and versions (row-bytes-cache.ts); 0 keeps none.
   */
  LIST_ENTRY_CACHE_MB: Type.Integer({ minimum: 0, maximum: 4096, default: 8 }),
  /**
   * The first row offset whose unfiltered resources, containers and packages pages start from a
   * row seen nearby (page-bookmarks.ts); a page before it walks from the start of its list, which
   * costs less than reading the list's generation does. 0: every page past the first.
   */
  LIST_BOOKMARKS_FROM_OFFSET: Type.Integer({ minimum: 0, default: 1000 }),
  /**
   * The most match ids the server keeps for searched pages of inventory containers and packages,
   * over all searches of both (searched-matches.ts): a later page of a search, while its list is
   * unchanged, reads a slice of them instead of searching again. 0: every searched page searches.
   */
  SEARCHED_MATCHES_MAX_IDS: Type.Integer({ minimum: 0, default: 250_000 }),
  /** Integrations may call loopback and private addresses (never link-local/metadata); see docs/integrations.md. */
  INTEGRATIONS_ALLOW_PRIVATE_NETWORKS: Type.Boolean({ default: false }),
  /** Webhook deliveries: per-attempt deadline, attempts before giving up, first retry delay (doubles), queue poll. */
  INTEGRATIONS_DELIVERY_TIMEOUT_MS: Type.Integer({ minimum: 100, maximum: 120_000, default: 10_000 }),
  INTEGRATIONS_DELIVERY_MAX_ATTEMPTS: Type.Integer({ minimum: 1, maximum: 50, default: 8 }),
  INTEGRATIONS_DELIVERY_BACKOFF_MS: Type.Integer({ minimum: 1, maximum: 3_600_000, default: 30_000 }),
  INTEGRATIONS_DELIVERY_POLL_MS: Type.Integer({ minimum: 0, maximum: 3_600_000, default: 2_000 }),
});

export type Config = Static<typeof ConfigSchema>;

export class ConfigError extends Error {}

const KNOWN_KEYS = Object.keys(ConfigSchema.properties);

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const raw: Record<string, unknown> = {};
  for (const key of KNOWN_KEYS) {
    const value = env[key];
    // An empty variable means "unset", as in most shells' `VAR= cmd`.
    if (value !== undefined && value !== '') raw[key] = value;
  }
  const converted = Value.Convert(ConfigSchema, Value.Default(ConfigSchema, raw));
  const errors = [...Value.Errors(ConfigSchema, converted)];
  if (errors.length > 0) {
    const lines = errors.map((error) => {
      const key = error.instancePath.replace(/^\//, '') || String(error.params ?? '');
      return `${key}: ${error.message} (got ${JSON.stringify(raw[key])})`;
    });
    throw new ConfigError(`invalid configuration:\n  ${[...new Set(lines)].join('\n  ')}`);
  }
  const config = converted as Config;
  if (config.POSTURE_UNSAFE_DISABLE_APP_SCOPING && (env.NODE_ENV ?? process.env.NODE_ENV) !== 'test') {
    throw new ConfigError(
      "POSTURE_UNSAFE_DISABLE_APP_SCOPING turns off the services' tenant and account checks; it is for the test suite only (NODE_ENV=test)",
    );
  }
  return config;
}

/** A configuration for tests and tools: in-memory store unless DATABASE_URL is given, quiet logs. */
export function testConfig(overrides: Partial<Config> = {}): Config {
  return loadConfig({
    DATA_DIR: ':memory:',
    LOG_LEVEL: 'silent',
    DEMO: 'false',
    // Test events carry fixed past timestamps: a wall-clock sweep would close every learning window.
    RUNTIME_WINDOW_SWEEP_SECONDS: '0',
    POSTURE_SECRET: 'test-secret-test-secret-test-secret-0000',
    DATABASE_URL: process.env.DATABASE_URL,
    // The isolation matrix's RLS-only run (docs/security.md) reaches the app through this variable.
    POSTURE_UNSAFE_DISABLE_APP_SCOPING: process.env.POSTURE_UNSAFE_DISABLE_APP_SCOPING,
    ...Object.fromEntries(
      Object.entries(overrides).map(([k, v]) => [k, v === undefined ? undefined : String(v)]),
    ),
  });
}
