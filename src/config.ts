import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';

// The only reader of process.env: a setting is parsed, validated and defaulted here, once.

const optionalNonEmpty = z
  .string()
  .trim()
  .transform((v) => (v === '' ? undefined : v))
  .optional();

const intInRange = (min: number, max: number) =>
  z.coerce
    .number({ error: `must be a whole number between ${min} and ${max}` })
    .int({ error: `must be a whole number between ${min} and ${max}` })
    .min(min, { error: `must be a whole number between ${min} and ${max}` })
    .max(max, { error: `must be a whole number between ${min} and ${max}` });

const optionalInt = (min: number, max: number) =>
  z.preprocess((v) => (typeof v === 'string' && v.trim() === '' ? undefined : v), intInRange(min, max).optional());

const CURRENCIES = new Set(Intl.supportedValuesOf('currency'));

const MAX_WORKERS = 64;
const WORKERS_MESSAGE = `must be auto or a whole number between 1 and ${MAX_WORKERS}`;

// zod still runs the refinements below on an out-of-range value: report that once, not twice.
const isWorkerCount = (n: number) => Number.isInteger(n) && n >= 1 && n <= MAX_WORKERS;

const envSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  PORT: intInRange(0, 65535).default(4000),
  HOST: z.string().trim().min(1).default('127.0.0.1'),
  DATABASE_URL: optionalNonEmpty.pipe(
    z
      .string()
      .refine((v) => /^postgres(ql)?:\/\//.test(v), {
        error: 'must be a postgres:// or postgresql:// URL',
      })
      .optional(),
  ),
  DATA_DIR: z.string().trim().min(1).default('./.data'),
  DATABASE_POOL_SIZE: intInRange(1, 200).default(10),
  DATABASE_CONNECT_TIMEOUT_MS: intInRange(100, 60_000).default(2_000),
  DATABASE_STATEMENT_TIMEOUT_MS: intInRange(100, 600_000).default(2_000),
  SHUTDOWN_TIMEOUT_MS: intInRange(0, 600_000).default(10_000),
  // Heroku's and Render's name for it. `auto`: one worker per core this process may use.
  WEB_CONCURRENCY: z
    .preprocess(
      (v) => (typeof v === 'string' && v.trim().toLowerCase() === 'auto' ? Math.min(MAX_WORKERS, os.availableParallelism()) : v),
      z.coerce
        .number({ error: WORKERS_MESSAGE })
        .int({ error: WORKERS_MESSAGE })
        .min(1, { error: WORKERS_MESSAGE })
        .max(MAX_WORKERS, { error: WORKERS_MESSAGE }),
    )
    .default(1),
  METRICS_TOKEN: optionalNonEmpty.pipe(
    z.string().min(16, { error: 'must be at least 16 characters' }).optional(),
  ),
  TOKEN_EXPIRATION_MINUTES: optionalInt(1, 525_600_00),
  TOKEN_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_-]{0,32}$/, { error: 'may hold only A-Z a-z 0-9 _ - (at most 32)' })
    .default(''),
  LOGIN_MAX_ATTEMPTS: intInRange(1, 1_000_000).default(5),
  // Per user: tokens made with POST /api/v1/tokens or token:create, and (apart) login tokens.
  MAX_TOKENS_PER_USER: intInRange(1, 100_000).default(100),
  MAX_LOGIN_TOKENS_PER_USER: intInRange(1, 100_000).default(50),
  LOGIN_MAX_ATTEMPTS_PER_IP: intInRange(1, 1_000_000).default(20),
  LOGIN_DECAY_SECONDS: intInRange(1, 86_400).default(60),
  TRUST_PROXY: intInRange(0, 10).default(0),
  // argon2 runs on libuv's pool (4 threads by default): more would queue there and hold up fs, dns and zlib.
  PASSWORD_HASH_CONCURRENCY: intInRange(1, 64).default(() => Math.min(4, os.availableParallelism())),
  PASSWORD_HASH_QUEUE: intInRange(0, 10_000).default(50),
  PASSWORD_HASH_QUEUE_TIMEOUT_MS: intInRange(1, 60_000).default(2_000),
  MAX_PAGE_SIZE: intInRange(1, 10_000).default(100),
  CATALOG_MAX_STEPS: intInRange(1, 10_000).default(100),
  CATALOG_MAX_COMPONENTS_PER_STEP: intInRange(1, 10_000).default(100),
  CATALOG_MAX_CUSTOMISATIONS_PER_COMPONENT: intInRange(1, 10_000).default(100),
  // Per product in all, on every write path (README "Catalogue sizes" says why these defaults).
  CATALOG_MAX_COMPONENTS_PER_PRODUCT: intInRange(1, 1_000_000).default(1_000),
  CATALOG_MAX_CUSTOMISATIONS_PER_PRODUCT: intInRange(1, 1_000_000).default(5_000),
  // The currency of products created without one: an ISO 4217 code this runtime knows.
  CATALOG_CURRENCY: z
    .string()
    .trim()
    .toUpperCase()
    .default('EUR')
    .refine((v) => CURRENCIES.has(v), { error: 'must be an ISO 4217 currency code, such as EUR or USD' }),
  CONFIGURATION_SAVES_PER_MINUTE: intInRange(1, 100_000).default(30),
  // Unset: saved configurations are kept until an admin deletes them.
  CONFIGURATION_RETENTION_DAYS: optionalInt(1, 36_500),
  // GraphQL edge limits (README "GraphQL limits and security" says why each default).
  GRAPHQL_MAX_DEPTH: intInRange(1, 100).default(10),
  GRAPHQL_MAX_TOKENS: intInRange(10, 1_000_000).default(1000),
  GRAPHQL_MAX_ALIASES: intInRange(0, 10_000).default(15),
  GRAPHQL_MAX_DIRECTIVES: intInRange(0, 10_000).default(50),
  GRAPHQL_MAX_COST: intInRange(1, 100_000_000).default(5000),
  GRAPHQL_MAX_ANSWER_FIELDS: intInRange(1, 100_000_000).default(100_000),
  GRAPHQL_MAX_BODY_BYTES: intInRange(1024, 100 * 1024 * 1024).default(1024 * 1024),
  GRAPHQL_MAX_IN_FLIGHT_PER_TOKEN: intInRange(1, 10_000).default(16),
  // Unset: twice the per-token cap, so minting tokens multiplies nobody's share by more than that.
  GRAPHQL_MAX_IN_FLIGHT_PER_USER: optionalInt(1, 100_000),
  GRAPHQL_EXECUTION_TIMEOUT_MS: intInRange(1, 600_000).default(10_000),
  // 0 entries turns the response cache off.
  RESPONSE_CACHE_MAX_ENTRIES: intInRange(0, 10_000_000).default(10_000),
  RESPONSE_CACHE_MAX_BYTES: intInRange(1024, 64 * 1024 * 1024 * 1024).default(64 * 1024 * 1024),
  RESPONSE_CACHE_TTL_MS: intInRange(1, 86_400_000).default(300_000),
  // 0 entries turns the token cache off: every request looks its token up.
  TOKEN_CACHE_MAX_ENTRIES: intInRange(0, 10_000_000).default(10_000),
  TOKEN_CACHE_TTL_MS: intInRange(1, 3_600_000).default(60_000),
  CACHE_LISTENER_HEARTBEAT_MS: intInRange(50, 60_000).default(1_000),
  DATABASE_LISTEN_URL: optionalNonEmpty.pipe(
    z
      .string()
      .refine((v) => /^postgres(ql)?:\/\//.test(v), { error: 'must be a postgres:// or postgresql:// URL' })
      .optional(),
  ),
  FEDERATION_SECRET: optionalNonEmpty.pipe(
    z.string().min(32, { error: 'must be at least 32 characters (e.g. openssl rand -base64 48)' }).optional(),
  ),
  FEDERATION_MAX_REPRESENTATIONS: intInRange(1, 100_000).default(1000),
  HTTP_HEADERS_TIMEOUT_MS: intInRange(100, 600_000).default(10_000),
  HTTP_REQUEST_TIMEOUT_MS: intInRange(100, 3_600_000).default(30_000),
  HTTP_KEEP_ALIVE_TIMEOUT_MS: intInRange(100, 600_000).default(5_000),
  // GraphiQL is served without a token: bound what clients that never read it can hold.
  GRAPHIQL: z.enum(['on', 'off'], { error: 'must be on or off' }).default('on'),
  GRAPHIQL_MAX_CONCURRENT_SENDS: intInRange(1, 1000).default(8),
  GRAPHIQL_SEND_TIMEOUT_MS: intInRange(100, 600_000).default(30_000),
  // Every response: a client that does not read must not hold its answer in memory for long.
  RESPONSE_SEND_TIMEOUT_MS: intInRange(100, 3_600_000).default(30_000),
  RESPONSE_MAX_BUFFERED_BYTES: intInRange(16 * 1024, 1024 * 1024 * 1024).default(1024 * 1024),
  RESPONSE_STALL_TIMEOUT_MS: intInRange(100, 600_000).default(5_000),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  CORS_ORIGINS: z
    .string()
    .default('')
    .transform((v) =>
      v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    )
    .pipe(
      z.array(
        z.string().regex(/^https?:\/\/[^/\s]+$/, {
          error: 'must be a comma-separated list of origins like https://shop.example.com',
        }),
      ),
    ),
});

export type Config = Readonly<{
  nodeEnv: 'development' | 'production' | 'test';
  port: number;
  host: string;
  /** Unset: the embedded PostgreSQL under dataDir. */
  databaseUrl: string | undefined;
  dataDir: string;
  databasePoolSize: number;
  databaseConnectTimeoutMs: number;
  databaseStatementTimeoutMs: number;
  shutdownTimeoutMs: number;
  workers: number;
  /** Bearer token for GET /metrics; unset: /metrics is not served. */
  metricsToken: string | undefined;
  tokenExpirationMinutes: number | undefined;
  tokenPrefix: string;
  loginMaxAttempts: number;
  /** Created tokens a user may hold (POST /api/v1/tokens, token:create answer 422 beyond). */
  maxTokensPerUser: number;
  /** Login tokens a user may hold; a new login revokes the oldest beyond. */
  maxLoginTokensPerUser: number;
  /** Failed logins per client IP (any email) per window: the password-spraying ceiling. */
  loginMaxAttemptsPerIp: number;
  loginDecaySeconds: number;
  trustProxy: number;
  passwordHashConcurrency: number;
  passwordHashQueue: number;
  passwordHashQueueTimeoutMs: number;
  maxPageSize: number;
  /** Most children one catalogue write may carry, per parent, and one product may hold in all (maxSteps is both). */
  catalogWriteLimits: {
    maxSteps: number;
    maxComponentsPerStep: number;
    maxCustomisationsPerComponent: number;
    maxComponentsPerProduct: number;
    maxCustomisationsPerProduct: number;
  };
  /** ISO 4217 code of products created without one. */
  catalogCurrency: string;
  /** Saves per user per minute; how long saved configurations are kept (undefined: forever). */
  configurations: { savesPerMinute: number; retentionDays: number | undefined };
  graphqlMaxDepth: number;
  graphqlMaxTokens: number;
  graphqlMaxAliases: number;
  graphqlMaxDirectives: number;
  graphqlMaxCost: number;
  /** Most fields one answer may hold, counted with the catalogue's real list sizes before they are loaded. */
  graphqlMaxAnswerFields: number;
  graphqlMaxBodyBytes: number;
  graphqlMaxInFlightPerToken: number;
  graphqlMaxInFlightPerUser: number;
  graphqlExecutionTimeoutMs: number;
  /** maxEntries 0: no response cache. */
  responseCache: { maxEntries: number; maxBytes: number; ttlMs: number };
  /** maxEntries 0: every request looks its token up. */
  tokenCache: { maxEntries: number; ttlMs: number };
  /** How often the change-notification connection is checked. */
  cacheListenerHeartbeatMs: number;
  /** Where change notifications are listened for, when not DATABASE_URL (e.g. past a transaction pooler). */
  databaseListenUrl: string | undefined;
  /** Shared with the federation gateway, which sends it as `Router-Authorization`; unset: `_entities` and `_service` answer nobody. */
  federationSecret: string | undefined;
  federationMaxRepresentations: number;
  httpHeadersTimeoutMs: number;
  httpRequestTimeoutMs: number;
  httpKeepAliveTimeoutMs: number;
  /** GRAPHIQL=off: no page at /graphql (404 for browsers); the API is unchanged. */
  graphiql: boolean;
  graphiqlMaxConcurrentSends: number;
  graphiqlSendTimeoutMs: number;
  /** Bounds on sending any response (see src/http/send-deadline.ts). */
  responseSend: { timeoutMs: number; maxBufferedBytes: number; stallTimeoutMs: number };
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  corsOrigins: readonly string[];
}>;

const configSchema = envSchema
  .refine((e) => e.HTTP_HEADERS_TIMEOUT_MS <= e.HTTP_REQUEST_TIMEOUT_MS, {
    path: ['HTTP_HEADERS_TIMEOUT_MS'],
    error: 'must not be greater than HTTP_REQUEST_TIMEOUT_MS (node:http refuses it)',
  })
  // The embedded database is locked to one process; quietly running one worker would mislead the operator.
  .refine((e) => !isWorkerCount(e.WEB_CONCURRENCY) || e.WEB_CONCURRENCY === 1 || e.DATABASE_URL !== undefined, {
    path: ['WEB_CONCURRENCY'],
    error: (issue) =>
      `${(issue.input as { WEB_CONCURRENCY: number }).WEB_CONCURRENCY} workers need a PostgreSQL server (DATABASE_URL): ` +
      'the embedded database admits one process; unset WEB_CONCURRENCY or set it to 1',
  });

/** Their values never reach an error message or a log. */
const SECRET_VARIABLES = new Set(['METRICS_TOKEN', 'FEDERATION_SECRET']);

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = configSchema.safeParse(env);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((issue) => {
        const name = String(issue.path[0] ?? '?');
        const shown = SECRET_VARIABLES.has(name) ? '(hidden)' : JSON.stringify(env[name] ?? '');
        return `${name}=${shown}: ${issue.message}`;
      }),
    );
  }
  const e = parsed.data;
  return Object.freeze({
    nodeEnv: e.NODE_ENV,
    port: e.PORT,
    host: e.HOST,
    databaseUrl: e.DATABASE_URL,
    dataDir: path.resolve(e.DATA_DIR),
    databasePoolSize: e.DATABASE_POOL_SIZE,
    databaseConnectTimeoutMs: e.DATABASE_CONNECT_TIMEOUT_MS,
    databaseStatementTimeoutMs: e.DATABASE_STATEMENT_TIMEOUT_MS,
    shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS,
    workers: e.WEB_CONCURRENCY,
    metricsToken: e.METRICS_TOKEN,
    tokenExpirationMinutes: e.TOKEN_EXPIRATION_MINUTES,
    tokenPrefix: e.TOKEN_PREFIX,
    loginMaxAttempts: e.LOGIN_MAX_ATTEMPTS,
    maxTokensPerUser: e.MAX_TOKENS_PER_USER,
    maxLoginTokensPerUser: e.MAX_LOGIN_TOKENS_PER_USER,
    loginMaxAttemptsPerIp: e.LOGIN_MAX_ATTEMPTS_PER_IP,
    loginDecaySeconds: e.LOGIN_DECAY_SECONDS,
    trustProxy: e.TRUST_PROXY,
    passwordHashConcurrency: e.PASSWORD_HASH_CONCURRENCY,
    passwordHashQueue: e.PASSWORD_HASH_QUEUE,
    passwordHashQueueTimeoutMs: e.PASSWORD_HASH_QUEUE_TIMEOUT_MS,
    maxPageSize: e.MAX_PAGE_SIZE,
    catalogWriteLimits: Object.freeze({
      maxSteps: e.CATALOG_MAX_STEPS,
      maxComponentsPerStep: e.CATALOG_MAX_COMPONENTS_PER_STEP,
      maxCustomisationsPerComponent: e.CATALOG_MAX_CUSTOMISATIONS_PER_COMPONENT,
      maxComponentsPerProduct: e.CATALOG_MAX_COMPONENTS_PER_PRODUCT,
      maxCustomisationsPerProduct: e.CATALOG_MAX_CUSTOMISATIONS_PER_PRODUCT,
    }),
    catalogCurrency: e.CATALOG_CURRENCY,
    configurations: Object.freeze({
      savesPerMinute: e.CONFIGURATION_SAVES_PER_MINUTE,
      retentionDays: e.CONFIGURATION_RETENTION_DAYS,
    }),
    graphqlMaxDepth: e.GRAPHQL_MAX_DEPTH,
    graphqlMaxTokens: e.GRAPHQL_MAX_TOKENS,
    graphqlMaxAliases: e.GRAPHQL_MAX_ALIASES,
    graphqlMaxDirectives: e.GRAPHQL_MAX_DIRECTIVES,
    graphqlMaxCost: e.GRAPHQL_MAX_COST,
    graphqlMaxAnswerFields: e.GRAPHQL_MAX_ANSWER_FIELDS,
    graphqlMaxBodyBytes: e.GRAPHQL_MAX_BODY_BYTES,
    graphqlMaxInFlightPerToken: e.GRAPHQL_MAX_IN_FLIGHT_PER_TOKEN,
    graphqlMaxInFlightPerUser: e.GRAPHQL_MAX_IN_FLIGHT_PER_USER ?? 2 * e.GRAPHQL_MAX_IN_FLIGHT_PER_TOKEN,
    graphqlExecutionTimeoutMs: e.GRAPHQL_EXECUTION_TIMEOUT_MS,
    responseCache: Object.freeze({
      maxEntries: e.RESPONSE_CACHE_MAX_ENTRIES,
      maxBytes: e.RESPONSE_CACHE_MAX_BYTES,
      ttlMs: e.RESPONSE_CACHE_TTL_MS,
    }),
    tokenCache: Object.freeze({ maxEntries: e.TOKEN_CACHE_MAX_ENTRIES, ttlMs: e.TOKEN_CACHE_TTL_MS }),
    cacheListenerHeartbeatMs: e.CACHE_LISTENER_HEARTBEAT_MS,
    databaseListenUrl: e.DATABASE_LISTEN_URL,
    federationSecret: e.FEDERATION_SECRET,
    federationMaxRepresentations: e.FEDERATION_MAX_REPRESENTATIONS,
    httpHeadersTimeoutMs: e.HTTP_HEADERS_TIMEOUT_MS,
    httpRequestTimeoutMs: e.HTTP_REQUEST_TIMEOUT_MS,
    httpKeepAliveTimeoutMs: e.HTTP_KEEP_ALIVE_TIMEOUT_MS,
    graphiql: e.GRAPHIQL === 'on',
    graphiqlMaxConcurrentSends: e.GRAPHIQL_MAX_CONCURRENT_SENDS,
    graphiqlSendTimeoutMs: e.GRAPHIQL_SEND_TIMEOUT_MS,
    responseSend: Object.freeze({
      timeoutMs: e.RESPONSE_SEND_TIMEOUT_MS,
      maxBufferedBytes: e.RESPONSE_MAX_BUFFERED_BYTES,
      stallTimeoutMs: e.RESPONSE_STALL_TIMEOUT_MS,
    }),
    logLevel: e.LOG_LEVEL,
    corsOrigins: Object.freeze(e.CORS_ORIGINS),
  });
}
