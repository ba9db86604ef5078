import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';

// The only reader of process.env: a setting is parsed, validated and defaulted here, once. Each group below
// names the variables it reads (the schema) and the settings the service sees (the Config type is inferred).

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

const postgresUrl = optionalNonEmpty.pipe(
  z
    .string()
    .refine((v) => /^postgres(ql)?:\/\//.test(v), { error: 'must be a postgres:// or postgresql:// URL' })
    .optional(),
);

const CURRENCIES = new Set(Intl.supportedValuesOf('currency'));

const MAX_WORKERS = 64;
const WORKERS_MESSAGE = `must be auto or a whole number between 1 and ${MAX_WORKERS}`;

// zod still runs the refinements below on an out-of-range value: report that once, not twice.
const isWorkerCount = (n: number) => Number.isInteger(n) && n >= 1 && n <= MAX_WORKERS;

/** A group of settings: the variables it reads, and what it makes of them once they are valid. */
const group = <Shape extends z.ZodRawShape, Settings>(
  shape: Shape,
  read: (env: z.output<z.ZodObject<Shape>>) => Settings,
) => ({
  shape,
  read,
});

const runtime = group(
  {
    NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
    // Heroku's and Render's name for it. `auto`: one worker per core this process may use.
    WEB_CONCURRENCY: z
      .preprocess(
        (v) =>
          typeof v === 'string' && v.trim().toLowerCase() === 'auto'
            ? Math.min(MAX_WORKERS, os.availableParallelism())
            : v,
        z.coerce
          .number({ error: WORKERS_MESSAGE })
          .int({ error: WORKERS_MESSAGE })
          .min(1, { error: WORKERS_MESSAGE })
          .max(MAX_WORKERS, { error: WORKERS_MESSAGE }),
      )
      .default(1),
    SHUTDOWN_TIMEOUT_MS: intInRange(0, 600_000).default(10_000),
  },
  (e) => ({ nodeEnv: e.NODE_ENV, workers: e.WEB_CONCURRENCY, shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS }),
);

const logging = group(
  {
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  },
  (e) => ({ level: e.LOG_LEVEL }),
);

const http = group(
  {
    PORT: intInRange(0, 65535).default(4000),
    HOST: z.string().trim().min(1).default('127.0.0.1'),
    TRUST_PROXY: intInRange(0, 10).default(0),
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
    HTTP_HEADERS_TIMEOUT_MS: intInRange(100, 600_000).default(10_000),
    HTTP_REQUEST_TIMEOUT_MS: intInRange(100, 3_600_000).default(30_000),
    HTTP_KEEP_ALIVE_TIMEOUT_MS: intInRange(100, 600_000).default(5_000),
    // Every response: a client that does not read must not hold its answer in memory for long.
    RESPONSE_SEND_TIMEOUT_MS: intInRange(100, 3_600_000).default(30_000),
    RESPONSE_MAX_BUFFERED_BYTES: intInRange(16 * 1024, 1024 * 1024 * 1024).default(1024 * 1024),
    RESPONSE_STALL_TIMEOUT_MS: intInRange(100, 600_000).default(5_000),
  },
  (e) => ({
    port: e.PORT,
    host: e.HOST,
    trustProxy: e.TRUST_PROXY,
    corsOrigins: e.CORS_ORIGINS,
    headersTimeoutMs: e.HTTP_HEADERS_TIMEOUT_MS,
    requestTimeoutMs: e.HTTP_REQUEST_TIMEOUT_MS,
    keepAliveTimeoutMs: e.HTTP_KEEP_ALIVE_TIMEOUT_MS,
    /** Bounds on sending any response (see src/http/send-deadline.ts). */
    send: {
      timeoutMs: e.RESPONSE_SEND_TIMEOUT_MS,
      maxBufferedBytes: e.RESPONSE_MAX_BUFFERED_BYTES,
      stallTimeoutMs: e.RESPONSE_STALL_TIMEOUT_MS,
    },
  }),
);

const database = group(
  {
    DATABASE_URL: postgresUrl,
    DATA_DIR: z.string().trim().min(1).default('./.data'),
    DATABASE_POOL_SIZE: intInRange(1, 200).default(10),
    DATABASE_CONNECT_TIMEOUT_MS: intInRange(100, 60_000).default(2_000),
    DATABASE_STATEMENT_TIMEOUT_MS: intInRange(100, 600_000).default(2_000),
    // Seed, import, export and the other admin commands run statements that take minutes, not a request's 2 s.
    CLI_STATEMENT_TIMEOUT_MS: z
      .union([z.literal('0').transform(() => 0), intInRange(1_000, 86_400_000)])
      .default(600_000),
    DATABASE_LISTEN_URL: postgresUrl,
  },
  (e) => ({
    /** Unset: the embedded PostgreSQL under dataDir. */
    url: e.DATABASE_URL,
    dataDir: path.resolve(e.DATA_DIR),
    poolSize: e.DATABASE_POOL_SIZE,
    connectTimeoutMs: e.DATABASE_CONNECT_TIMEOUT_MS,
    statementTimeoutMs: e.DATABASE_STATEMENT_TIMEOUT_MS,
    /** The command-line tools' statement timeout; 0 turns it off. */
    cliStatementTimeoutMs: e.CLI_STATEMENT_TIMEOUT_MS,
    /** Where change notifications are listened for, when not url (e.g. past a transaction pooler). */
    listenUrl: e.DATABASE_LISTEN_URL,
  }),
);

const auth = group(
  {
    TOKEN_EXPIRATION_MINUTES: optionalInt(1, 525_600_00),
    TOKEN_PREFIX: z
      .string()
      .regex(/^[A-Za-z0-9_-]{0,32}$/, { error: 'may hold only A-Z a-z 0-9 _ - (at most 32)' })
      .default(''),
    // Per user: tokens made with POST /api/v1/tokens or token:create, and (apart) login tokens.
    MAX_TOKENS_PER_USER: intInRange(1, 100_000).default(100),
    MAX_LOGIN_TOKENS_PER_USER: intInRange(1, 100_000).default(50),
    LOGIN_MAX_ATTEMPTS: intInRange(1, 1_000_000).default(5),
    LOGIN_MAX_ATTEMPTS_PER_IP: intInRange(1, 1_000_000).default(20),
    LOGIN_DECAY_SECONDS: intInRange(1, 86_400).default(60),
    // argon2 runs on libuv's pool (4 threads by default): more would queue there and hold up fs, dns and zlib.
    PASSWORD_HASH_CONCURRENCY: intInRange(1, 64).default(() => Math.min(4, os.availableParallelism())),
    PASSWORD_HASH_QUEUE: intInRange(0, 10_000).default(50),
    PASSWORD_HASH_QUEUE_TIMEOUT_MS: intInRange(1, 60_000).default(2_000),
  },
  (e) => ({
    tokens: {
      /** Unset: tokens do not expire. */
      expirationMinutes: e.TOKEN_EXPIRATION_MINUTES,
      prefix: e.TOKEN_PREFIX,
      /** Created tokens a user may hold (POST /api/v1/tokens, token:create answer 422 beyond). */
      maxPerUser: e.MAX_TOKENS_PER_USER,
      /** Login tokens a user may hold; a new login revokes the oldest beyond. */
      maxLoginPerUser: e.MAX_LOGIN_TOKENS_PER_USER,
    },
    /** Failed logins per account, and per client IP (any email: the password-spraying ceiling), per window. */
    throttle: {
      maxAttempts: e.LOGIN_MAX_ATTEMPTS,
      maxAttemptsPerIp: e.LOGIN_MAX_ATTEMPTS_PER_IP,
      decaySeconds: e.LOGIN_DECAY_SECONDS,
    },
    /** argon2: hashes at once, logins that may wait for a slot, and for how long. */
    passwordHash: {
      concurrency: e.PASSWORD_HASH_CONCURRENCY,
      maxQueue: e.PASSWORD_HASH_QUEUE,
      maxWaitMs: e.PASSWORD_HASH_QUEUE_TIMEOUT_MS,
    },
  }),
);

// GraphQL edge limits (docs/security-and-limits.md says why each default).
const graphql = group(
  {
    MAX_PAGE_SIZE: intInRange(1, 10_000).default(100),
    GRAPHQL_MAX_DEPTH: intInRange(1, 100).default(10),
    GRAPHQL_MAX_TOKENS: intInRange(10, 1_000_000).default(1000),
    GRAPHQL_MAX_ALIASES: intInRange(0, 10_000).default(15),
    GRAPHQL_MAX_DIRECTIVES: intInRange(0, 10_000).default(50),
    GRAPHQL_MAX_COST: intInRange(1, 100_000_000).default(5000),
    GRAPHQL_MAX_ANSWER_FIELDS: intInRange(1, 100_000_000).default(100_000),
    GRAPHQL_MAX_ANSWER_BYTES: intInRange(1024, 1024 * 1024 * 1024).default(4 * 1024 * 1024),
    GRAPHQL_MAX_BODY_BYTES: intInRange(1024, 100 * 1024 * 1024).default(1024 * 1024),
    GRAPHQL_MAX_IN_FLIGHT_PER_TOKEN: intInRange(1, 10_000).default(16),
    // Unset: twice the per-token cap, so minting tokens multiplies nobody's share by more than that.
    GRAPHQL_MAX_IN_FLIGHT_PER_USER: optionalInt(1, 100_000),
    GRAPHQL_EXECUTION_TIMEOUT_MS: intInRange(1, 600_000).default(10_000),
  },
  (e) => ({
    /** Most items one page of a paginated list may hold. */
    maxPageSize: e.MAX_PAGE_SIZE,
    maxDepth: e.GRAPHQL_MAX_DEPTH,
    maxTokens: e.GRAPHQL_MAX_TOKENS,
    maxAliases: e.GRAPHQL_MAX_ALIASES,
    maxDirectives: e.GRAPHQL_MAX_DIRECTIVES,
    maxCost: e.GRAPHQL_MAX_COST,
    /** Most fields one answer may hold, counted with the catalogue's real list sizes before they are loaded. */
    maxAnswerFields: e.GRAPHQL_MAX_ANSWER_FIELDS,
    /** Most bytes of JSON one answer may hold, weighed before each part of it is built (messages and ids included). */
    maxAnswerBytes: e.GRAPHQL_MAX_ANSWER_BYTES,
    maxBodyBytes: e.GRAPHQL_MAX_BODY_BYTES,
    maxInFlightPerToken: e.GRAPHQL_MAX_IN_FLIGHT_PER_TOKEN,
    maxInFlightPerUser: e.GRAPHQL_MAX_IN_FLIGHT_PER_USER ?? 2 * e.GRAPHQL_MAX_IN_FLIGHT_PER_TOKEN,
    executionTimeoutMs: e.GRAPHQL_EXECUTION_TIMEOUT_MS,
  }),
);

// GraphiQL is served without a token: bound what clients that never read it can hold.
const graphiql = group(
  {
    GRAPHIQL: z.enum(['on', 'off'], { error: 'must be on or off' }).default('on'),
    GRAPHIQL_MAX_CONCURRENT_SENDS: intInRange(1, 1000).default(8),
    GRAPHIQL_SEND_TIMEOUT_MS: intInRange(100, 600_000).default(30_000),
  },
  (e) => ({
    /** GRAPHIQL=off: no page at /graphql (404 for browsers); the API is unchanged. */
    enabled: e.GRAPHIQL === 'on',
    maxConcurrentSends: e.GRAPHIQL_MAX_CONCURRENT_SENDS,
    sendTimeoutMs: e.GRAPHIQL_SEND_TIMEOUT_MS,
  }),
);

const federation = group(
  {
    FEDERATION_SECRET: optionalNonEmpty.pipe(
      z.string().min(32, { error: 'must be at least 32 characters (e.g. openssl rand -base64 48)' }).optional(),
    ),
    FEDERATION_MAX_REPRESENTATIONS: intInRange(1, 100_000).default(1000),
  },
  (e) => ({
    /** Shared with the federation gateway, which sends it as `Router-Authorization`; unset: `_entities` and `_service` answer nobody. */
    secret: e.FEDERATION_SECRET,
    maxRepresentations: e.FEDERATION_MAX_REPRESENTATIONS,
  }),
);

const caches = group(
  {
    // 0 entries turns the response cache off.
    RESPONSE_CACHE_MAX_ENTRIES: intInRange(0, 10_000_000).default(10_000),
    RESPONSE_CACHE_MAX_BYTES: intInRange(1024, 64 * 1024 * 1024 * 1024).default(64 * 1024 * 1024),
    RESPONSE_CACHE_TTL_MS: intInRange(1, 86_400_000).default(300_000),
    // 0 entries turns the token cache off: every request looks its token up.
    TOKEN_CACHE_MAX_ENTRIES: intInRange(0, 10_000_000).default(10_000),
    TOKEN_CACHE_TTL_MS: intInRange(1, 3_600_000).default(60_000),
    CACHE_LISTENER_HEARTBEAT_MS: intInRange(50, 60_000).default(1_000),
  },
  (e) => ({
    /** maxEntries 0: no response cache. */
    response: {
      maxEntries: e.RESPONSE_CACHE_MAX_ENTRIES,
      maxBytes: e.RESPONSE_CACHE_MAX_BYTES,
      ttlMs: e.RESPONSE_CACHE_TTL_MS,
    },
    /** maxEntries 0: every request looks its token up. */
    token: { maxEntries: e.TOKEN_CACHE_MAX_ENTRIES, ttlMs: e.TOKEN_CACHE_TTL_MS },
    /** How often the change-notification connection is checked. */
    listenerHeartbeatMs: e.CACHE_LISTENER_HEARTBEAT_MS,
  }),
);

const catalog = group(
  {
    CATALOG_MAX_STEPS: intInRange(1, 10_000).default(100),
    CATALOG_MAX_COMPONENTS_PER_STEP: intInRange(1, 10_000).default(100),
    CATALOG_MAX_CUSTOMISATIONS_PER_COMPONENT: intInRange(1, 10_000).default(100),
    // Per product in all, on every write path (docs/configuration.md, "Catalogue", says why these defaults).
    CATALOG_MAX_COMPONENTS_PER_PRODUCT: intInRange(1, 1_000_000).default(1_000),
    CATALOG_MAX_CUSTOMISATIONS_PER_PRODUCT: intInRange(1, 1_000_000).default(5_000),
    CATALOG_MAX_RULES_PER_PRODUCT: intInRange(0, 100_000).default(1_000),
    // The currency of products created without one: an ISO 4217 code this runtime knows.
    CATALOG_CURRENCY: z
      .string()
      .trim()
      .toUpperCase()
      .default('EUR')
      .refine((v) => CURRENCIES.has(v), { error: 'must be an ISO 4217 currency code, such as EUR or USD' }),
  },
  (e) => ({
    /** Most children one catalogue write may carry, per parent, and one product may hold in all (maxSteps is both). */
    writeLimits: {
      maxSteps: e.CATALOG_MAX_STEPS,
      maxComponentsPerStep: e.CATALOG_MAX_COMPONENTS_PER_STEP,
      maxCustomisationsPerComponent: e.CATALOG_MAX_CUSTOMISATIONS_PER_COMPONENT,
      maxComponentsPerProduct: e.CATALOG_MAX_COMPONENTS_PER_PRODUCT,
      maxCustomisationsPerProduct: e.CATALOG_MAX_CUSTOMISATIONS_PER_PRODUCT,
      maxRulesPerProduct: e.CATALOG_MAX_RULES_PER_PRODUCT,
    },
    /** ISO 4217 code of products created without one. */
    currency: e.CATALOG_CURRENCY,
  }),
);

const configurations = group(
  {
    CONFIGURATION_SAVES_PER_MINUTE: intInRange(1, 100_000).default(30),
    // Unset: saved configurations are kept until an admin deletes them.
    CONFIGURATION_RETENTION_DAYS: optionalInt(1, 36_500),
  },
  (e) => ({
    /** Saves per user per minute. */
    savesPerMinute: e.CONFIGURATION_SAVES_PER_MINUTE,
    /** How long saved configurations are kept (undefined: forever). */
    retentionDays: e.CONFIGURATION_RETENTION_DAYS,
  }),
);

const metrics = group(
  {
    METRICS_TOKEN: optionalNonEmpty.pipe(z.string().min(16, { error: 'must be at least 16 characters' }).optional()),
  },
  (e) => ({
    /** Bearer token for GET /metrics; unset: /metrics is not served. */
    token: e.METRICS_TOKEN,
  }),
);

type Frozen<T> = T extends readonly (infer U)[]
  ? readonly Frozen<U>[]
  : T extends object
    ? { readonly [K in keyof T]: Frozen<T[K]> }
    : T;

function freeze<T>(value: T): Frozen<T> {
  if (typeof value === 'object' && value !== null) {
    for (const inner of Object.values(value)) freeze(inner);
    Object.freeze(value);
  }
  return value as Frozen<T>;
}

const GROUPS = {
  runtime,
  logging,
  http,
  database,
  auth,
  graphql,
  graphiql,
  federation,
  caches,
  catalog,
  configurations,
  metrics,
};
type Groups = typeof GROUPS;
type UnionToIntersection<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void ? I : never;
/** Every group's variables in one object: process.env is parsed once, and every bad variable is reported at once. */
type Shape = UnionToIntersection<Groups[keyof Groups]['shape']>;

const configSchema = z
  .object(Object.assign({}, ...Object.values(GROUPS).map((g) => g.shape)) as Shape)
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
  })
  .transform((e) => {
    const groups = Object.fromEntries(Object.entries(GROUPS).map(([name, g]) => [name, g.read(e)]));
    return freeze(groups as { [G in keyof Groups]: ReturnType<Groups[G]['read']> });
  });

/** Every setting, by group; frozen. Parts of the service are given the groups (or settings) they read. */
export type Config = z.output<typeof configSchema>;

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
  return parsed.data;
}
