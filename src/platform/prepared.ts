import { createHash } from 'node:crypto';
import { CompiledQuery, type Compilable, type Kysely } from 'kysely';

// Hot queries are built with Kysely once and then only bind parameters; pg-pool.ts sends them as named statements,
// prepared once per connection, still through Kysely's executor so its log sees each one. A migration that
// changes a selected column's type may fail them ("cached plan must not change result type") until connections recycle.
// With DATABASE_PREPARED_STATEMENTS=false (a transaction-mode pooler that cannot keep them) the names are
// registered still but never sent: every statement goes unnamed, parsed and planned each time.

const statementNames = new Map<string, string>();

function register(name: string, sqlText: string): void {
  const existing = [...statementNames].find(([, n]) => n === name);
  if (existing && existing[0] !== sqlText) throw new Error(`Prepared statement name ${name} is used for two texts`);
  statementNames.set(sqlText, name);
}

export interface PreparedQuery<Row> {
  execute(db: Kysely<any>, parameters: readonly unknown[]): Promise<Row[]>;
}

/** Parameters are positional, in the built query's order ($1, $2...); `build` runs once and its values are placeholders. */
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
          throw new Error(
            `${name}: built with ${compiled.parameters.length} parameters, called with ${parameters.length}`,
          );
        }
        register(name, compiled.sql);
        sqlText = compiled.sql;
      }
      const result = await db.executeQuery<Row>(CompiledQuery.raw(sqlText, [...parameters]));
      return result.rows;
    },
  };
}

/** Statements built per request whose texts are few (one per shape of a query): each backend keeps every one it ran. */
const MAX_SHAPES = 256;
let shapes = 0;

/**
 * Runs a statement built per request as a named prepared statement, named by its text, so each shape is
 * parsed and planned once per connection. Past MAX_SHAPES texts, the rest run unnamed. Only for statements
 * whose best plan does not depend on the parameters' values (a generic plan serves them all).
 */
export async function executeAsPrepared<Row>(db: Kysely<any>, compiled: CompiledQuery<Row>): Promise<Row[]> {
  if (!statementNames.has(compiled.sql) && shapes < MAX_SHAPES) {
    shapes++;
    register(`shape_${createHash('sha256').update(compiled.sql).digest('hex').slice(0, 24)}`, compiled.sql);
  }
  return (await db.executeQuery(compiled)).rows;
}

export function preparedStatementName(sqlText: string): string | undefined {
  return statementNames.get(sqlText);
}
