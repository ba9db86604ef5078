import { CompiledQuery, type Compilable, type Kysely } from 'kysely';
import type pg from 'pg';

/**
 * Named prepared statements for the hot queries (token lookup, catalog levels).
 *
 * A hot query is built with Kysely once, on first use; afterwards each call only
 * binds new parameters to the same SQL text, so neither Kysely's builder and
 * compiler (in Node) nor PostgreSQL's parser and planner (per statement) run per
 * request. On PostgreSQL the pool wrapper below sends registered texts as named
 * statements, which pg prepares once per connection; PGlite executes the same
 * text unnamed. Statements still go through Kysely's executor, so its log (the
 * tests' statement counter) sees every one.
 *
 * Prepared statements are per connection and name only their SQL text: a
 * migration that changes the type of a selected column makes PostgreSQL replan,
 * or fail with "cached plan must not change result type" until the connection
 * is recycled; additive migrations are safe.
 */

const statementNames = new Map<string, string>();

function register(name: string, sqlText: string): void {
  const existing = [...statementNames].find(([, n]) => n === name);
  if (existing && existing[0] !== sqlText) throw new Error(`Prepared statement name ${name} is used for two texts`);
  statementNames.set(sqlText, name);
}

export interface PreparedQuery<Row> {
  execute(db: Kysely<any>, parameters: readonly unknown[]): Promise<Row[]>;
}

/**
 * A query whose text is fixed and whose parameters are given positionally, in the
 * order the built query uses them ($1, $2, ...). `build` is called once, on first
 * use; the values it puts where parameters go are placeholders only.
 */
export function preparedQuery<Row>(
  name: string,
  build: (db: Kysely<any>) => Compilable<Row> | CompiledQuery<Row>,
): PreparedQuery<Row> {
  let sqlText: string | undefined;
  return {
    async execute(db, parameters) {
      if (sqlText === undefined) {
        const built = build(db);
        const compiled = 'sql' in built ? built : built.compile();
        if (compiled.parameters.length !== parameters.length) {
          throw new Error(`${name}: built with ${compiled.parameters.length} parameters, called with ${parameters.length}`);
        }
        register(name, compiled.sql);
        sqlText = compiled.sql;
      }
      const result = await db.executeQuery<Row>(CompiledQuery.raw(sqlText, [...parameters]));
      return result.rows;
    },
  };
}

type QueryClient = Pick<pg.PoolClient, 'query' | 'release'>;

/**
 * A pg pool for Kysely's PostgresDialect whose clients send registered SQL texts
 * as named statements. Everything else passes through unchanged.
 */
export function withPreparedStatements(pool: pg.Pool) {
  // Kysely keys its connection objects by client: hand out one wrapper per pg client.
  const wrappers = new WeakMap<pg.PoolClient, QueryClient>();
  return {
    async connect(): Promise<QueryClient> {
      const client = await pool.connect();
      let wrapper = wrappers.get(client);
      if (!wrapper) {
        wrapper = {
          query: ((text: unknown, values?: unknown[]) => {
            const name = typeof text === 'string' ? statementNames.get(text) : undefined;
            return name
              ? client.query({ name, text: text as string, values })
              : client.query(text as string, values);
          }) as pg.PoolClient['query'],
          // pg-pool replaces release() on every checkout: look it up at call time.
          release: (err?: Error | boolean) => client.release(err),
        };
        wrappers.set(client, wrapper);
      }
      return wrapper;
    },
    end: () => pool.end(),
  };
}
