// Hive Gateway configuration for test/integration/gateway.test.ts. The supergraph
// file comes on the command line (`hive-gateway supergraph <file>`).
import { defineConfig } from '@graphql-hive/gateway';

export const gatewayConfig = defineConfig({
  // The catalog answers nothing without a bearer token: the gateway must pass the
  // client's Authorization header on to every subgraph request. It answers
  // _entities and _service only to the gateway, which proves itself with the
  // shared FEDERATION_SECRET in Router-Authorization (not a client's header:
  // set here, whatever the client sent).
  propagateHeaders: {
    fromClientToSubgraphs: ({ request }) => {
      const authorization = request.headers.get('authorization');
      return {
        ...(authorization ? { authorization } : {}),
        'router-authorization': process.env.FEDERATION_SECRET ?? '',
      };
    },
  },
  graphiql: false,
  logging: 'warn',
});
