import type http from 'node:http';
import type { Config } from './config.ts';
import { buildSchema } from './graphql/schema.ts';
import { createGraphQLHandler, CSRF_HEADERS } from './graphql/yoga.ts';
import { createCors } from './http/cors.ts';
import { createHealthRoutes } from './http/health.ts';
import { createHttpServer, createRequestListener } from './http/server.ts';
import { createAuthRoutes } from './modules/auth/routes.ts';
import { createAuthService, type AuthService } from './modules/auth/service.ts';
import { createDatabase, type DatabaseHandle, type QueryObserver } from './platform/db.ts';
import { createLogger, type Logger } from './platform/logger.ts';

export interface App {
  server: http.Server;
  database: DatabaseHandle;
  auth: AuthService;
  logger: Logger;
  /** Stops accepting, lets in-flight requests finish, then closes the database if this app opened it. */
  close(): Promise<void>;
}

export interface AppOptions {
  logger?: Logger;
  /** An open database to use (and leave open on close); by default one is opened from config. */
  database?: DatabaseHandle;
  onQuery?: QueryObserver;
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
      logger,
      onQuery: options.onQuery,
    }));
  const { db } = database;

  const auth = createAuthService({ db, config, logger });
  const graphql = createGraphQLHandler({ config, db, logger, schema: buildSchema() });
  const routes = [...createHealthRoutes(db), ...createAuthRoutes(auth)];
  const cors = createCors({ origins: config.corsOrigins, allowedHeaders: CSRF_HEADERS });
  const server = createHttpServer(
    createRequestListener({
      routes,
      graphql,
      auth,
      logger,
      cors,
      graphqlMaxBodyBytes: config.graphqlMaxBodyBytes,
      trustProxy: config.trustProxy,
    }),
    {
      headersTimeoutMs: config.httpHeadersTimeoutMs,
      requestTimeoutMs: config.httpRequestTimeoutMs,
      keepAliveTimeoutMs: config.httpKeepAliveTimeoutMs,
    },
  );

  let closing: Promise<void> | undefined;
  return {
    server,
    database,
    auth,
    logger,
    close() {
      closing ??= (async () => {
        if (server.listening) {
          await new Promise<void>((resolve) => {
            server.close(() => resolve());
            server.closeIdleConnections();
          });
        }
        if (ownsDatabase) await database.close();
      })();
      return closing;
    },
  };
}
