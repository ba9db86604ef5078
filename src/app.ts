import type http from 'node:http';
import type { Config } from './config.ts';
import { createGraphiQL } from './graphql/graphiql.ts';
import { buildSchema } from './graphql/schema.ts';
import { createGraphQLHandler, CSRF_HEADERS } from './graphql/yoga.ts';
import { createCors } from './http/cors.ts';
import { createHealthRoutes } from './http/health.ts';
import { createLifecycle, type Lifecycle } from './http/lifecycle.ts';
import { createMetricsRoute } from './http/metrics.ts';
import { observeRequests } from './http/observe.ts';
import { createHttpServer, createRequestListener } from './http/server.ts';
import { createAuthRoutes } from './modules/auth/routes.ts';
import { createAuthService, type AuthService } from './modules/auth/service.ts';
import { createDatabase, type DatabaseHandle, type QueryObserver } from './platform/db.ts';
import { createLogger, type Logger } from './platform/logger.ts';
import { createMetrics, type Metrics } from './platform/metrics.ts';

export interface App {
  server: http.Server;
  database: DatabaseHandle;
  auth: AuthService;
  logger: Logger;
  metrics: Metrics;
  /** starting → serving → draining; /ready and the dispatcher follow it. */
  lifecycle: Lifecycle;
  /**
   * Turns /ready 503, stops accepting, lets in-flight requests finish (up to
   * SHUTDOWN_TIMEOUT_MS, then cuts the rest), then closes the database if this app opened it.
   */
  close(): Promise<void>;
}

export interface AppOptions {
  logger?: Logger;
  /** An open database to use (and leave open on close); by default one is opened from config. */
  database?: DatabaseHandle;
  onQuery?: QueryObserver;
  /** Begin in the 'starting' phase (503 but for probes) until lifecycle.markServing(): main.ts listens before the database is ready. */
  starting?: boolean;
  /**
   * What GET /metrics serves instead of this app's own registry: a cluster
   * worker serves the whole instance's, whichever worker the scrape reached.
   */
  metricsExposition?: () => Promise<string>;
}

/** Builds the service without listening or migrating: main.ts and the tests decide those. */
export async function createApp(config: Config, options: AppOptions = {}): Promise<App> {
  const logger = options.logger ?? createLogger(config.logLevel);
  const ownsDatabase = options.database === undefined;
  const database =
    options.database ??
    (await createDatabase({
      databaseUrl: config.databaseUrl,
      dataDir: config.dataDir,
      poolSize: config.databasePoolSize,
      connectTimeoutMs: config.databaseConnectTimeoutMs,
      statementTimeoutMs: config.databaseStatementTimeoutMs,
      logger,
      onQuery: options.onQuery,
    }));
  const { db } = database;
  const metrics = createMetrics();
  const stopObservingQueries = database.observeQueries(metrics.observeQuery);
  if (database.poolStats) metrics.watchPool(database.poolStats);
  const lifecycle = createLifecycle(options.starting ? 'starting' : 'serving');

  const auth = createAuthService({ db, config, logger });
  const graphql = createGraphQLHandler({ config, db, logger, schema: buildSchema() });
  const graphiql = createGraphiQL({
    maxConcurrentSends: config.graphiqlMaxConcurrentSends,
    sendTimeoutMs: config.graphiqlSendTimeoutMs,
  });
  graphiql.start();
  const routes = [
    ...createHealthRoutes(db, () => lifecycle.phase === 'serving'),
    createMetricsRoute(metrics, config.metricsToken, options.metricsExposition),
    ...createAuthRoutes(auth),
  ];
  const cors = createCors({ origins: config.corsOrigins, allowedHeaders: CSRF_HEADERS });
  const server = createHttpServer(
    observeRequests(
      createRequestListener({
        routes,
        graphql,
        graphiql,
        auth,
        logger,
        cors,
        graphqlMaxBodyBytes: config.graphqlMaxBodyBytes,
        graphqlMaxInFlightPerToken: config.graphqlMaxInFlightPerToken,
        trustProxy: config.trustProxy,
      }),
      { logger, metrics, lifecycle, routes },
    ),
    {
      headersTimeoutMs: config.httpHeadersTimeoutMs,
      requestTimeoutMs: config.httpRequestTimeoutMs,
      keepAliveTimeoutMs: config.httpKeepAliveTimeoutMs,
    },
  );
  lifecycle.attach(server);

  let closing: Promise<void> | undefined;
  return {
    server,
    database,
    auth,
    logger,
    metrics,
    lifecycle,
    close() {
      closing ??= (async () => {
        await lifecycle.drain(server, config.shutdownTimeoutMs);
        stopObservingQueries();
        if (ownsDatabase) await database.close();
      })();
      return closing;
    },
  };
}
