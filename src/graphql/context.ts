import type { YogaInitialContext } from 'graphql-yoga';
import type { Session } from '../platform/session.ts';

/** What the /graphql endpoint hands Yoga for each request: only authenticated requests execute. */
export interface ServerContext {
  session: Session;
  ip: string;
}

/** The context every resolver sees; each module adds its own per-request part (its loaders). */
export type GraphQLContext = ServerContext & YogaInitialContext;

/** A module's SDL (a folder under schema/), the resolvers for it, and how codegen types them. */
export interface GraphQLModule {
  schemaDir: string;
  resolvers: object;
  codegen?: {
    contextType: string;
    mappers?: Record<string, string>;
    /** SDL folders this module's SDL builds on (types it extends or returns), typed alongside its own. */
    uses?: readonly string[];
  };
}
