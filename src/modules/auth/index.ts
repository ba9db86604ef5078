import { fileURLToPath } from 'node:url';
import { Gauge } from 'prom-client';
import type { GraphQLModule } from '../../graphql/context.ts';
import type { Config } from '../../config.ts';
import type { Module } from '../module.ts';
import { createAuthenticator } from './authenticate.ts';
import { createAuthRequest } from './context.ts';
import { authResolvers } from './me.ts';
import { getDummyHash } from './password.ts';
import { createAuthRoutes, TOKENS_MANAGE } from './routes.ts';
import { createAuthService } from './service.ts';
import type { AuthTables } from './tables.ts';
import { createTokenCache } from './token-cache.ts';

export type { AuthTables } from './tables.ts';
// Users and tokens, for the server and the command line alike.
export {
  createAuthService,
  normaliseEmail,
  type AuthService,
  type TokenListing,
  type TokenSummary,
} from './service.ts';
export { countUsers, DuplicateEmailError } from './repository.ts';
export { TOKENS_CHANGED } from './token-cache.ts';
// tokenSchema: what POST /api/v1/tokens accepts, so `admin token:create` accepts the same.
export { TOKENS_MANAGE, tokenSchema } from './routes.ts';
// The token format and the password hash, for tools that measure or mimic the service (scripts/bench, login-timing).
export { hashSecret, parseBearerHeader } from './token.ts';
export { hashPassword, verifyPassword } from './password.ts';

/** What the auth module reads: its own settings and the token cache's. */
export type AuthSettings = Config['auth'] & { tokenCache: Config['caches']['token'] };

// `me` only; its fields are per caller, so none is listed as public to the response cache.
const graphql: GraphQLModule = {
  schemaDir: fileURLToPath(new URL('../../../schema/auth', import.meta.url)),
  resolvers: authResolvers,
  codegen: { contextType: '../context.ts#AuthRequestContext' },
};

/** Users, tokens and the login throttle: the /api/v1 routes and the authentication of every request. */
export const authModule = {
  name: 'auth',
  abilities: [
    { name: TOKENS_MANAGE, description: "List, create and revoke the user's tokens (any token may log itself out)." },
  ],
  // `me` only; its fields are per caller, so none is marked @sharedCache.
  graphql,
  settings: (config) => ({ ...config.auth, tokenCache: config.caches.token }),
  create({ db, config, logger, registry, abilities, changes }) {
    const cache =
      changes && config.tokenCache.maxEntries > 0
        ? createTokenCache({ ...config.tokenCache, feed: changes, registry })
        : undefined;
    const service = createAuthService({ db, config, logger, onRevoke: cache?.clear });
    // Made now, so that the first unknown email a server sees is not the slow one (a CLI command need not wait for it).
    void getDummyHash();
    for (const [name, help, pick] of [
      [
        'auth_password_hashing_running',
        'Logins and password hashes running (at most PASSWORD_HASH_CONCURRENCY).',
        'running',
      ],
      ['auth_password_hashing_waiting', 'Logins waiting for a hashing slot (at most PASSWORD_HASH_QUEUE).', 'waiting'],
    ] as const) {
      new Gauge({
        name,
        help,
        registers: [registry],
        collect() {
          this.set(service.hashing()[pick]);
        },
      });
    }
    return {
      service,
      authenticate: createAuthenticator({
        db,
        lifetimeMinutes: config.tokens.expirationMinutes,
        logger,
        abilities,
        cache,
      }),
      routes: createAuthRoutes(service, registry, abilities),
      graphqlContext: () => createAuthRequest(db),
    };
  },
} satisfies Module<AuthTables, AuthSettings>;
