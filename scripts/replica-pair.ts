// A throwaway PostgreSQL primary and hot standby for development and benchmarks, until SIGINT or SIGTERM.
//   npx tsx scripts/replica-pair.ts     (or npm run replica-pair)
// Prints PRIMARY_URL=... and STANDBY_URL=... once both accept connections.
import { runCli } from './lib/cli.ts';
import { startReplicaPair } from './lib/replica-pair.ts';

runCli(async () => {
  const pair = await startReplicaPair();
  process.stdout.write(`PRIMARY_URL=${pair.primaryUrl()}\nSTANDBY_URL=${pair.standbyUrl()}\n`);
  // The servers run outside this process: without a timer of its own, Node would exit here.
  const keepAlive = setInterval(() => {}, 2 ** 30);
  await new Promise((resolve) => process.once('SIGINT', resolve).once('SIGTERM', resolve));
  clearInterval(keepAlive);
  await pair.stop();
});
