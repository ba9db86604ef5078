import { z } from 'zod';
import { graphiql, graphql, federation } from './config/graphql.ts';
import { auth, catalog, configurations } from './config/modules.ts';
import { caches, database, http, isWorkerCount, logging, metrics, runtime } from './config/server.ts';

// The only reader of process.env: a setting is parsed, validated and defaulted here, once. Each group
// (config/*.ts) names the variables it reads (the schema) and the settings the service sees (the Config
// type is inferred); this file puts them together, checks what spans groups, and reports every problem.

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
  .refine((e) => e.DATABASE_REPLICA_URLS.length === 0 || e.DATABASE_URL !== undefined, {
    path: ['DATABASE_REPLICA_URLS'],
    error: 'needs DATABASE_URL: read replicas are standbys of a PostgreSQL primary, not of the embedded database',
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
