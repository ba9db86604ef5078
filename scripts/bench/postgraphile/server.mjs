import http from 'node:http';
import { postgraphile } from 'postgraphile';
import { makePgService } from 'postgraphile/adaptors/pg';
import { grafserv } from 'postgraphile/grafserv/node';
import { PostGraphileAmberPreset } from 'postgraphile/presets/amber';

/**
 * The bench's PostGraphile 5 peer: the library with the amber preset over the bench database's public
 * schema, served by grafserv on node:http, one process, no GraphiQL, no auth (the bench's Authorization
 * header is ignored). Env: DATABASE_URL, PORT, POOL_SIZE (10). Prints "listening <port>" once the schema is built.
 */
const preset = {
  extends: [PostGraphileAmberPreset],
  pgServices: [
    makePgService({
      connectionString: process.env.DATABASE_URL,
      schemas: ['public'],
      poolConfig: { max: Number(process.env.POOL_SIZE ?? 10) },
      pubsub: false,
    }),
  ],
  grafserv: { graphiql: false, websockets: false },
  grafast: { explain: false },
};

const pgl = postgraphile(preset);
const serv = pgl.createServ(grafserv);
const server = http.createServer();
server.on('error', (err) => {
  console.error(err);
  process.exit(1);
});
await serv.addTo(server);
// Build the schema before the first request.
await pgl.getSchemaResult();
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`listening ${typeof address === 'object' && address ? address.port : ''}\n`);
});
const stop = () => server.close(() => void Promise.resolve(pgl.release()).then(() => process.exit(0)));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
