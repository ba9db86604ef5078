import type { AddressInfo } from 'node:net';
import { createApp } from '../../src/app.ts';
import type { Config } from '../../src/config.ts';
import type { Database } from '../../src/modules/index.ts';
import type { DatabaseHandle } from '../../src/platform/db.ts';
import { createLogger } from '../../src/platform/logger.ts';

/** The service on a scratch database, listening on a free port, with an administrator's login token. */
export async function startMeasuredService(config: Config, database: DatabaseHandle<Database>, password: string) {
  const app = await createApp(config, { database, logger: createLogger('warn', process.stderr) });
  await new Promise<void>((resolve) => app.server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  const user = { name: 'Measure', email: 'measure@measure.invalid', password, isAdmin: true };
  await app.modules.auth.service.createUser(user);
  const login = await fetch(`${base}/api/v1/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(user),
  });
  const token = ((await login.json()) as { data: { token: string } }).data.token;
  return { app, base, token };
}
