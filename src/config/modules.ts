import os from 'node:os';
import { z } from 'zod';
import { group, intInRange, optionalInt } from './values.ts';

// The modules' settings: auth (tokens, the login throttle, password hashing), the catalogue, saved configurations.

export const auth = group(
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

const CURRENCIES = new Set(Intl.supportedValuesOf('currency'));

export const catalog = group(
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

export const configurations = group(
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
