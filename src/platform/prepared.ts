import { CompiledQuery, type Compilable, type Kysely } from 'kysely';

/**
 * Named prepared statements for the hot queries (token lookup, catalog levels).
 *
 * A hot query is built with Kysely once, on first use; afterwards each call only
 * binds new parameters to the same SQL text, so neither Kysely's builder and
 * compiler (in Node) nor PostgreSQL's parser and planner (per statement) run per
 * request. On PostgreSQL the pool adapter (pg-pool.ts) sends registered texts as named
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

/** The name a registered SQL text is prepared under, if any. */
export function preparedStatementName(sqlText: string): string | undefined {
  return statementNames.get(sqlText);
}
