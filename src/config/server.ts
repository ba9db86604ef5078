import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { commaList, group, intInRange, optionalInt, optionalNonEmpty, postgresUrl, postgresUrlList } from './values.ts';

// The process and its edges: runtime and workers, logging, HTTP, the database, the caches, metrics.

const MAX_WORKERS = 64;
const WORKERS_MESSAGE = `must be auto or a whole number between 1 and ${MAX_WORKERS}`;

// zod still runs config.ts's refinements on an out-of-range value: they report it once, not twice.
export const isWorkerCount = (n: number) => Number.isInteger(n) && n >= 1 && n <= MAX_WORKERS;

export const runtime = group(
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

export const logging = group(
  {
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  },
  (e) => ({ level: e.LOG_LEVEL }),
);

export const http = group(
  {
    PORT: intInRange(0, 65535).default(4000),
    HOST: z.string().trim().min(1).default('127.0.0.1'),
    TRUST_PROXY: intInRange(0, 10).default(0),
    CORS_ORIGINS: commaList(
      z.string().regex(/^https?:\/\/[^/\s]+$/, {
        error: 'must be a comma-separated list of origins like https://shop.example.com',
      }),
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

export const database = group(
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
    DATABASE_REPLICA_URLS: postgresUrlList,
    DATABASE_REPLICA_MAX_LAG_MS: intInRange(10, 3_600_000).default(1_000),
    // false: every statement unnamed, for poolers that cannot keep a prepared statement (PgBouncer below 1.21).
    DATABASE_PREPARED_STATEMENTS: z.enum(['true', 'false'], { error: 'must be true or false' }).default('true'),
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
    /** Hot standbys of url that GraphQL queries may read from; empty: every read on url. */
    replicaUrls: e.DATABASE_REPLICA_URLS,
    /** A standby whose replay is further behind than this is skipped until it catches up. */
    replicaMaxLagMs: e.DATABASE_REPLICA_MAX_LAG_MS,
    /** Hot statements named and prepared once per connection (prepared.ts); false: all sent unnamed. */
    preparedStatements: e.DATABASE_PREPARED_STATEMENTS === 'true',
  }),
);

export const caches = group(
  {
    // 0 entries turns the response cache off.
    RESPONSE_CACHE_MAX_ENTRIES: intInRange(0, 10_000_000).default(10_000),
    RESPONSE_CACHE_MAX_BYTES: intInRange(1024, 64 * 1024 * 1024 * 1024).default(64 * 1024 * 1024),
    RESPONSE_CACHE_TTL_MS: intInRange(1, 86_400_000).default(300_000),
    // Unset: a sixteenth of RESPONSE_CACHE_MAX_BYTES, so a few heavy answers cannot flush the many light ones.
    RESPONSE_CACHE_MAX_ANSWER_BYTES: optionalInt(1, 64 * 1024 * 1024 * 1024),
    RESPONSE_CACHE_TOKEN_SHARE_PERCENT: intInRange(1, 100).default(25),
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
      maxAnswerBytes: e.RESPONSE_CACHE_MAX_ANSWER_BYTES ?? Math.floor(e.RESPONSE_CACHE_MAX_BYTES / 16),
      /** Binds only once the token's answers would evict others'. */
      maxTokenShare: e.RESPONSE_CACHE_TOKEN_SHARE_PERCENT / 100,
      ttlMs: e.RESPONSE_CACHE_TTL_MS,
    },
    /** maxEntries 0: every request looks its token up. */
    token: { maxEntries: e.TOKEN_CACHE_MAX_ENTRIES, ttlMs: e.TOKEN_CACHE_TTL_MS },
    /** How often the change-notification connection is checked. */
    listenerHeartbeatMs: e.CACHE_LISTENER_HEARTBEAT_MS,
  }),
);

export const metrics = group(
  {
    METRICS_TOKEN: optionalNonEmpty.pipe(z.string().min(16, { error: 'must be at least 16 characters' }).optional()),
  },
  (e) => ({
    /** Bearer token for GET /metrics; unset: /metrics is not served. */
    token: e.METRICS_TOKEN,
  }),
);
