import type pg from 'pg';
import { requestSignal } from './abort.ts';
import { isDatabaseUnavailable } from './db-errors.ts';
import { inReadScope, type ReplicaRouter, type ReplicaTarget } from './replicas.ts';

type QueryClient = Pick<pg.PoolClient, 'query' | 'release'>;
export interface PoolLike {
  connect(): Promise<QueryClient>;
  end(): Promise<void>;
}

// What may run on a standby: a plain SELECT outside a transaction. A transaction may write, so it opens on the primary.
const READ_STATEMENT = /^\s*select\b/i;
// Statements after which the primary holds nothing new (the rest may have written, or committed a write).
const WRITES_NOTHING = /^\s*(select|begin|start transaction|rollback|abort|show|set)\b/i;
// A standby cancels a query that conflicts with the WAL it replays (40001): the primary answers it instead.
const RECOVERY_CONFLICT = '40001';

/** A standby's failure to answer, never the statement's own (its timeout, 57014, is the statement's). */
function standbyFailed(err: unknown): boolean {
  const code = (err as { code?: unknown })?.code;
  if (code === RECOVERY_CONFLICT) return true;
  return code !== '57014' && isDatabaseUnavailable(err);
}

/**
 * The one place reads are routed: inside a read scope (a GraphQL query), a SELECT goes to a standby the
 * router says is fresh enough, and back to the primary, transparently, when that standby fails to connect or
 * to answer. Everything else, and everything outside a read scope, runs on the primary; each statement there
 * that may have written moves the router's horizon past it (a writer reads its own write).
 */
export function createRoutedPool(primary: PoolLike, router: ReplicaRouter<PoolLike>): PoolLike {
  const onPrimary = (client: QueryClient): QueryClient => ({
    query: ((text: string, values?: unknown[]) => {
      const running = client.query(text, values) as unknown as Promise<pg.QueryResult>;
      if (typeof text !== 'string' || WRITES_NOTHING.test(text)) return running;
      // Before the caller's continuation: its next read already waits for this write's position.
      return running.then(
        (result) => (router.changed(), result),
        (err: unknown) => {
          router.changed();
          throw err;
        },
      );
    }) as pg.PoolClient['query'],
    release: (err?: Error | boolean) => client.release(err),
  });

  /** Chooses its server at its first statement: only then is it known whether a standby may run it. */
  const deferred = (): QueryClient => {
    let bound: QueryClient | undefined;
    const bindPrimary = async () => (bound = onPrimary(await primary.connect()));
    const onStandby = async (target: ReplicaTarget<PoolLike>, text: string, values: unknown[] | undefined) => {
      let client: QueryClient;
      try {
        client = await target.pool.connect();
      } catch (err) {
        router.failed(target, err);
        return undefined;
      }
      try {
        const result = await client.query(text, values);
        router.used(target);
        bound = client;
        return result;
      } catch (err) {
        // An aborted request's statement is not worth a second try anywhere.
        if (!standbyFailed(err) || requestSignal()?.aborted) {
          bound = client;
          throw err;
        }
        client.release(true);
        router.failed(target, err);
        return undefined;
      }
    };
    return {
      query: (async (text: string, values?: unknown[]) => {
        if (bound) return bound.query(text, values);
        const target = typeof text === 'string' && READ_STATEMENT.test(text) ? router.pick() : undefined;
        if (target) {
          const answered = await onStandby(target, text, values);
          if (answered) return answered;
        }
        router.usedPrimary();
        return (await bindPrimary()).query(text, values);
      }) as pg.PoolClient['query'],
      release: (err?: Error | boolean) => bound?.release(err),
    };
  };

  return {
    async connect() {
      return inReadScope() ? deferred() : onPrimary(await primary.connect());
    },
    end: () => primary.end(),
  };
}
