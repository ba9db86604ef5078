/**
 * Soak test: N clients for M minutes mixing product pages, deep product queries,
 * logins and logouts; prints errors, latency percentiles and the server's RSS over
 * time. Not part of CI.
 *
 *   npm run soak -- --clients 8 --minutes 10                 # starts its own server on a fresh
 *                                                            # PostgreSQL database (DATABASE_URL) or
 *                                                            # a temporary embedded one
 *   npm run soak -- --url http://host:4000 --email e --password p [--metrics-token t]
 */
import { parseArgs } from 'node:util';
import { runClient } from './clients.ts';
import { mb, printSummary, SoakStats, startReporter } from './report.ts';
import { startOwnServer, useRunningServer } from './target.ts';

const { values: args } = parseArgs({
  options: {
    clients: { type: 'string', default: '4' },
    minutes: { type: 'string', default: '1' },
    products: { type: 'string', default: '300' },
    'report-seconds': { type: 'string', default: '30' },
    url: { type: 'string' },
    email: { type: 'string' },
    password: { type: 'string' },
    'metrics-token': { type: 'string' },
    'database-url': { type: 'string', default: process.env.DATABASE_URL },
  },
});

const clients = Number(args.clients);
const durationMs = Number(args.minutes) * 60_000;
const reportEveryMs = Number(args['report-seconds']) * 1000;
if (!(clients >= 1) || !(durationMs > 0)) throw new Error('--clients and --minutes must be positive numbers');

const target = args.url
  ? await useRunningServer({
      url: args.url,
      email: args.email,
      password: args.password,
      metricsToken: args['metrics-token'],
    })
  : await startOwnServer({ adminUrl: args['database-url'], products: args.products, clients });
const stats = new SoakStats();
const started = Date.now();
const until = started + durationMs;
console.log(
  `soak: ${clients} clients for ${args.minutes} min against ${target.base}; RSS at start ${mb(await target.rss())}`,
);

const reporter = startReporter(stats, () => target.rss(), started, reportEveryMs);
await Promise.all(
  Array.from({ length: clients }, (_, i) => {
    const { email, password } = target.users[i % target.users.length]!;
    return runClient({ base: target.base, email, password, until, seed: i + 1 }, stats);
  }),
);
const rssSeries = reporter.stop();
printSummary(stats, started, rssSeries, await target.rss());
console.log(await target.stop());
