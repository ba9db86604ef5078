import pg from 'pg';
import { TENANT_SETTING } from './tenancy.ts';

// Zero rows, so the statement after it is the only one whose rows and command the caller sees.
const SET_TENANT_SQL = `SELECT FROM (SELECT set_config('${TENANT_SETTING}', $1, true) AS v OFFSET 0) s WHERE v IS NULL`;
const SET_TENANT_NAME = 'pcs_set_tenant';

type Connection = {
  parse(message: { text: string; name: string; types: unknown[] }): void;
  bind(message: { portal: string; statement: string; values: unknown[] }): void;
  execute(message: { portal: string; rows: number }): void;
  parsedStatements: Record<string, string>;
  submittedNamedStatements?: Record<string, string>;
};

interface QueryConfig {
  text: string;
  name?: string | undefined;
  values?: unknown[] | undefined;
}

/**
 * A statement preceded by `set_config(pcs.tenant_id, …, true)` in the same round trip and the same
 * implicit transaction (one Sync after both): the setting holds for exactly that statement (or, before
 * BEGIN, for the transaction it opens), so a connection handed to another tenant, or shared through a
 * transaction-mode pooler, carries nothing over.
 */
/** What of pg's Query this extends (its protocol handlers are not in pg's types). */
interface ProtocolQuery {
  prepare(connection: Connection): void;
  handleCommandComplete(message: unknown, connection: Connection): void;
}
const Query = pg.Query as unknown as new (config: object) => ProtocolQuery;

class TenantQuery extends Query {
  #tenant: string;
  #named: boolean;
  #prefixCompletes = 1;

  constructor(
    config: QueryConfig,
    tenant: string,
    named: boolean,
    callback: (err: Error | null, result?: pg.QueryResult) => void,
  ) {
    super({ ...config, queryMode: 'extended', callback });
    this.#tenant = tenant;
    this.#named = named;
  }

  override prepare(connection: Connection) {
    // Unnamed, the prefix is parsed every time: its Bind and Execute are sent before the statement's own
    // Parse replaces the unnamed statement, and one Sync keeps both on one server connection of a pooler.
    const name = this.#named ? SET_TENANT_NAME : '';
    if (!this.#named || connection.parsedStatements[name] === undefined) {
      connection.parse({ text: SET_TENANT_SQL, name, types: [] });
      if (this.#named) connection.parsedStatements[name] = SET_TENANT_SQL;
    }
    connection.bind({ portal: '', statement: name, values: [this.#tenant] });
    connection.execute({ portal: '', rows: 0 });
    super.prepare(connection);
  }

  override handleCommandComplete(message: unknown, connection: Connection) {
    if (this.#prefixCompletes > 0) {
      this.#prefixCompletes--;
      return;
    }
    super.handleCommandComplete(message, connection);
  }
}

/**
 * Sends one statement as tenant on client; resolves as client.query would. `named`: the prefix is a named
 * prepared statement, parsed once per connection; false, for a pooler that cannot keep one, config.name too
 * must be unset.
 */
export function queryAsTenant(
  client: Pick<pg.PoolClient, 'query'>,
  config: QueryConfig,
  tenant: string,
  named = true,
): Promise<pg.QueryResult> {
  return new Promise((resolve, reject) => {
    const query = new TenantQuery(config, tenant, named, (err, result) => (err ? reject(err) : resolve(result!)));
    // Given a query object, pg returns that object (no promise): the callback settles this one.
    void client.query(query as unknown as pg.QueryConfig);
  });
}
