import { fileURLToPath } from 'node:url';
import { Gauge } from 'prom-client';
import type { GraphQLModule } from '../../graphql/context.ts';
import type { Config } from '../../config.ts';
import type { Module } from '../module.ts';
import { createAuthenticator } from './authenticate.ts';
import { authResolvers, createAuthRequest } from './me.ts';
import { createAuthRoutes, TOKENS_MANAGE } from './routes.ts';
import { createAuthService } from './service.ts';
import type { AuthTables } from './tables.ts';
import { createTokenCache } from './token-cache.ts';

export type { AuthTables } from './tables.ts';
export { createAuthService, normaliseEmail, type AuthService } from './service.ts';
export { countUsers } from './repository.ts';
export { TOKENS_CHANGED } from './token-cache.ts';
export { TOKENS_MANAGE } from './routes.ts';

/** What the auth module reads: its own settings and the token cache's. */
export type AuthSettings = Config['auth'] & { tokenCache: Config['caches']['token'] };

/** Users, tokens and the login throttle: the /api/v1 routes and the authentication of every request. */
export const authModule = {
  name: 'auth',
  abilities: [
    { name: TOKENS_MANAGE, description: "List, create and revoke the user's tokens (any token may log itself out)." },
  ],
  // `me` only; its fields are per caller, so none is listed as public to the response cache.
  graphql: {
    schemaDir: fileURLToPath(new URL('../../../schema/auth', import.meta.url)),
    resolvers: authResolvers,
  } as GraphQLModule,
  settings: (config) => ({ ...config.auth, tokenCache: config.caches.token }),
  create({ db, config, logger, registry, abilities, changes }) {
    const cache =
      changes && config.tokenCache.maxEntries > 0 ? createTokenCache({ ...config.tokenCache, feed: changes, registry }) : undefined;
    const service = createAuthService({ db, config, logger, onRevoke: cache?.clear });
    for (const [name, help, pick] of [
      ['auth_password_hashing_running', 'Logins and password hashes running (at most PASSWORD_HASH_CONCURRENCY).', 'running'],
      ['auth_password_hashing_waiting', 'Logins waiting for a hashing slot (at most PASSWORD_HASH_QUEUE).', 'waiting'],
    ] as const) {
      new Gauge({ name, help, registers: [registry], collect() { this.set(service.hashing()[pick]); } });
    }
    return {
      service,
      authenticate: createAuthenticator({ db, lifetimeMinutes: config.tokens.expirationMinutes, logger, abilities, cache }),
      routes: createAuthRoutes(service, registry, abilities),
      graphqlContext: () => createAuthRequest(db),
    };
  },
} satisfies Module<AuthTables, AuthSettings>;
