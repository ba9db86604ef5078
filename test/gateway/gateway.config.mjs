// Hive Gateway configuration for test/integration/gateway.test.ts. The supergraph
// file comes on the command line (`hive-gateway supergraph <file>`).
import { defineConfig } from '@graphql-hive/gateway';

export const gatewayConfig = defineConfig({
  // The catalog answers nothing without a bearer token: the gateway must pass the
  // client's Authorization header on to every subgraph request.
  propagateHeaders: {
    fromClientToSubgraphs: ({ request }) => {
      const authorization = request.headers.get('authorization');
      return authorization ? { authorization } : {};
    },
  },
  graphiql: false,
  logging: 'warn',
});
