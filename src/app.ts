import type http from 'node:http';
import type { Registry } from 'prom-client';
import type { Config } from './config.ts';
import { createCompiledPath } from './graphql/compiled-path.ts';
import { createGraphQLEndpoint } from './graphql/endpoint.ts';
import { createAnswerMediaTypes } from './graphql/media-types.ts';
import { GATEWAY_SECRET_HEADER } from './graphql/federation.ts';
import { createGraphiQL, type GraphiQL } from './graphql/graphiql.ts';
import {
  createResponseCache,
  createStoredAnswers,
  followChanges,
  type ResponseCache,
  type StoredAnswers,
} from './graphql/response-cache/index.ts';
import { createFullDocumentPolicy } from './graphql/plugins/use-trusted-documents.ts';
import { createGraphQLHandler, CSRF_HEADERS, GRAPHQL_PATH } from './graphql/yoga.ts';
import { createCors } from './http/cors.ts';
import { createHealthRoutes } from './http/health.ts';
import { createIndexRoute } from './http/index-route.ts';
import { createLifecycle, type Lifecycle } from './http/lifecycle.ts';
import { createMetricsRoute } from './http/metrics.ts';
import { createOpenApiRoute } from './http/openapi.ts';
import { observeRequests } from './http/observe.ts';
import { createHttpServer, createRequestListener } from './http/server.ts';
import {
  CATALOG_CHANGED,
  catalogChangedTags,
  createModules,
  DOCUMENTS_CHANGED,
  serviceSchema,
  TOKENS_CHANGED,
  type Database,
  type Modules,
} from './modules/index.ts';
import type { ModuleParts } from './modules/module.ts';
import { createTenantDirectory, TENANTS_CHANGED, type TenantDirectory } from './modules/tenants/index.ts';
import type { DatabaseHandle } from './platform/db.ts';
import { createLogger, type Logger } from './platform/logger.ts';
import { createMetrics, type Metrics } from './platform/metrics.ts';
import type { ChangeFeed } from './platform/notifications.ts';
import type { ReplicaRouter } from './platform/replicas.ts';

export interface App {
  server: http.Server;
  database: DatabaseHandle<Database>;
  modules: Modules;
  logger: Logger;
  metrics: Metrics;
  lifecycle: Lifecycle;
  /** The database's change notifications; absent when nothing here caches. */
  changes: ChangeFeed | undefined;
  /** The shared response cache; absent when it is switched off or nothing is listened for. */
  responseCache: ResponseCache | undefined;
  /** The customer companies by host. */
  tenants: TenantDirectory;
  /** Drains for up to SHUTDOWN_TIMEOUT_MS. The database stays open: its opener closes it. */
  close(): Promise<void>;
}

export interface AppOptions {
  database: DatabaseHandle<Database>;
  logger?: Logger;
  /** Begin in the 'starting' phase (503 but for probes) until lifecycle.markServing(): main.ts listens before the database is ready. */
  starting?: boolean;
  /** A cluster worker's /metrics serves the whole instance's, not this app's registry. */
  metricsExposition?: () => Promise<string>;
}

/** Only a process that caches, or reads from standbys, listens. */
async function listenForChanges(
  config: Config,
  database: DatabaseHandle<Database>,
  logger: Logger,
): Promise<ChangeFeed | undefined> {
  // Trusted documents follow the notifications when they are listened for, else re-read every few seconds.
  const caching = config.caches.response.maxEntries > 0 || config.caches.token.maxEntries > 0;
  // With standbys, the notifications also say which changes a standby must have replayed before it is read.
  if (!caching && !database.replicas) return undefined;
  return database.listen([CATALOG_CHANGED, TOKENS_CHANGED, TENANTS_CHANGED, DOCUMENTS_CHANGED], {
    heartbeatMs: config.caches.listenerHeartbeatMs,
    logger,
    url: config.database.listenUrl,
  });
}

/** The response cache, emptied of what each catalogue change names; none when it is switched off. */
function createFollowingCache(config: Config, changes: ChangeFeed, registry: Registry): ResponseCache | undefined {
  if (config.caches.response.maxEntries === 0) return undefined;
  const cache = createResponseCache({ ...config.caches.response, registry });
  followChanges(cache, changes, CATALOG_CHANGED, catalogChangedTags);
  return cache;
}

/**
 * Every change notified, from any instance or tool, must be replayed by a standby before it serves a read
 * (caches keep what a read returns); so must everything after a gap in the notifications.
 */
function followReplicas(replicas: ReplicaRouter, changes: ChangeFeed | undefined, metrics: Metrics): void {
  metrics.watchReplicas(replicas.status);
  for (const channel of [CATALOG_CHANGED, TOKENS_CHANGED, TENANTS_CHANGED]) changes?.on(channel, replicas.changed);
  changes?.onState((up) => up && replicas.changed());
}

/**
 * Stored answers are sent before Yoga for a POST of a full document: under GRAPHQL_TRUSTED_DOCUMENTS=require,
 * only to callers Yoga would let send one (an answer stored for a trusted document has the same key).
 */
function onlyForFullDocuments(stored: StoredAnswers, config: Config): StoredAnswers {
  if (config.graphql.trustedDocuments !== 'require') return stored;
  const mayRunAnyDocument = createFullDocumentPolicy(config);
  return {
    ...stored,
    answer: (session, body, req, res) => {
      const gatewaySecret = req.headers[GATEWAY_SECRET_HEADER];
      return (
        mayRunAnyDocument(session, typeof gatewaySecret === 'string' ? gatewaySecret : null) &&
        stored.answer(session, body, req, res)
      );
    },
  };
}

/**
 * The /graphql endpoint: Yoga for every document, stored answers and the compiled path for trusted documents
 * before it, all three answering as Yoga would.
 */
function createGraphQL(deps: {
  config: Config;
  logger: Logger;
  metrics: Metrics;
  database: DatabaseHandle<Database>;
  modules: Modules;
  parts: ModuleParts[];
  responseCache: ResponseCache | undefined;
  graphiql: GraphiQL;
}) {
  const { config, logger, metrics, database, modules, parts, responseCache, graphiql } = deps;
  const schema = serviceSchema();
  const contextParts = parts.flatMap((p) => (p.graphqlContext ? [p.graphqlContext] : []));
  const readReplicas = database.replicas !== undefined;
  const trustedDocuments = modules.documents.trustedDocuments?.get;
  // What Yoga answered each Accept with, for the answers sent without it (stored, compiled).
  const mediaTypes = createAnswerMediaTypes();
  return createGraphQLEndpoint({
    yoga: createGraphQLHandler({
      config,
      logger,
      schema,
      contextParts,
      responseCache,
      readReplicas,
      trustedDocuments,
      mediaTypes,
    }),
    graphiql,
    storedAnswers: responseCache && onlyForFullDocuments(createStoredAnswers(responseCache, mediaTypes), config),
    compiledPath:
      trustedDocuments &&
      createCompiledPath({
        config,
        logger,
        schema,
        contextParts,
        find: trustedDocuments,
        mediaTypes,
        cache: responseCache,
        readReplicas,
        registry: metrics.registry,
      }),
    maxBodyBytes: config.graphql.maxBodyBytes,
    maxInFlightPerToken: config.graphql.maxInFlightPerToken,
    maxInFlightPerUser: config.graphql.maxInFlightPerUser,
  });
}

/** Builds the service from the platform and the modules, without listening or migrating. */
export async function createApp(config: Config, options: AppOptions): Promise<App> {
  const { database } = options;
  const logger = options.logger ?? createLogger(config.logging.level);
  const metrics = createMetrics();
  const stopObservingQueries = database.observeQueries(metrics.observeQuery);
  if (database.poolStats) metrics.watchPool(database.poolStats);
  const lifecycle = createLifecycle(options.starting ? 'starting' : 'serving');

  const changes = await listenForChanges(config, database, logger);
  const responseCache = changes && createFollowingCache(config, changes, metrics.registry);
  if (database.replicas) followReplicas(database.replicas, changes, metrics);

  const tenants = createTenantDirectory(database.db, changes, logger);
  const modules = createModules({ db: database.db, config, logger, registry: metrics.registry, changes });
  const parts: ModuleParts[] = Object.values(modules);
  const graphiql = createGraphiQL(config.graphiql);
  graphiql.start();
  const graphql = createGraphQL({ config, logger, metrics, database, modules, parts, responseCache, graphiql });
  const routes = [
    createIndexRoute({ graphiql: config.graphiql.enabled, metrics: config.metrics.token !== undefined }),
    ...createHealthRoutes(database.db, () => lifecycle.phase === 'serving'),
    createMetricsRoute(metrics, config.metrics.token, options.metricsExposition),
    createOpenApiRoute(),
    ...parts.flatMap((p) => p.routes ?? []),
  ];
  const server = createHttpServer(
    observeRequests(
      createRequestListener({
        routes,
        endpoints: [graphql],
        authenticate: modules.auth.authenticate,
        lifecycle,
        logger,
        cors: createCors({
          origins: config.http.corsOrigins,
          allowedHeaders: CSRF_HEADERS,
          paths: [GRAPHQL_PATH, '/api/v1/'],
        }),
        trustProxy: config.http.trustProxy,
        tenants,
        send: config.http.send,
        maxInFlightPerTenant: config.graphql.maxInFlightPerTenant,
      }),
      { logger, metrics, lifecycle },
    ),
    config.http,
  );
  lifecycle.attach(server);

  let closing: Promise<void> | undefined;
  return {
    server,
    database,
    modules,
    logger,
    metrics,
    lifecycle,
    changes,
    responseCache,
    tenants,
    close() {
      closing ??= lifecycle
        .drain(server, config.runtime.shutdownTimeoutMs)
        .finally(stopObservingQueries)
        .finally(() => changes?.close());
      return closing;
    },
  };
}
