import { randomBytes } from 'node:crypto';
import { loadConfig } from '../../src/config.ts';
import { ensureDatabase, prepareDataset, revokeToken } from '../lib/dataset.ts';
import { startServer, stopServer, type Server } from '../lib/service-process.ts';
import { ensureBuilt, serviceNodeArgs } from '../lib/start-command.ts';
import { postGraphQL } from './http.ts';
import { ServerOutput } from './server-output.ts';

/** What the findings run against: the service this run started, or one already running (--url). */
export interface Target {
  base: string;
  /** Bearer tokens of two different users (finding 3 needs the second). */
  tokens: [string, string];
  /** A user's real credentials, for the login finding; absent: a made-up user (401). */
  login?: { email: string; password: string };
  /** What the fixed service expects in Router-Authorization; absent: the gateway requests send none. */
  federationSecret?: string;
  productIds: string[];
  /** Settings of the service that differ from its defaults because this shell's environment set them. */
  inheritedSettings?: string[];
  /** The serving process, for VmRSS; absent: RSS columns stay empty. */
  pid?: number;
  /** Its stdout and stderr, line by line; only when this run started it. */
  output?: ServerOutput;
  /** Why the server is gone (it died, or the RSS guard killed it); undefined while it serves. */
  gone(): string | undefined;
  /** Kills it (own server only). */
  kill(reason: string): void;
  close(): Promise<void>;
}

/**
 * The service inherits this shell's environment: say which of its settings that
 * changed (e.g. DATABASE_STATEMENT_TIMEOUT_MS), so a report never hides them.
 */
function inheritedSettings(env: Record<string, string>): string[] {
  // Group by group: `database.statementTimeoutMs`, not the whole group.
  const flat = (o: object, prefix = ''): [string, unknown][] =>
    Object.entries(o as Record<string, unknown>).flatMap(([k, v]): [string, unknown][] =>
      v !== null && typeof v === 'object' && !Array.isArray(v) ? flat(v, `${prefix}${k}.`) : [[`${prefix}${k}`, v]],
    );
  const ours = Object.fromEntries(flat(loadConfig(env)));
  const effective = Object.fromEntries(flat(loadConfig({ ...process.env, ...env })));
  const show = (key: string, v: unknown) => (/token|secret|url/i.test(key) ? '(set)' : JSON.stringify(v));
  return Object.keys(effective)
    .filter((key) => JSON.stringify(effective[key]) !== JSON.stringify(ours[key]))
    .map((key) => `${key}=${show(key, effective[key])}`);
}

const ABUSE_USERS = ['abuse-a@abuse.invalid', 'abuse-b@abuse.invalid'] as const;

/**
 * Creates and seeds the database when needed (the bench's dataset, same seed),
 * then starts the service as `npm start` runs it, on one worker so that its pid
 * is the process serving (and its VmRSS the one that matters).
 */
export async function startOwnTarget(opts: {
  databaseUrl: string;
  products: number;
  log: (l: string) => void;
}): Promise<Target> {
  const { databaseUrl, products, log } = opts;
  if (await ensureDatabase(databaseUrl)) log(`created database ${new URL(databaseUrl).pathname.slice(1)}`);
  // A fresh password per run, for the login finding only; shown nowhere.
  const password = randomBytes(18).toString('base64url');
  const users = ABUSE_USERS.map((email, i) => ({
    email,
    name: `Abuse ${i + 1}`,
    tokenName: 'abuse',
    password: i === 0 ? password : undefined,
  }));
  const dataset = await prepareDataset(databaseUrl, products, log, users);
  const revoke = () => Promise.all(dataset.tokens.map((t) => revokeToken(databaseUrl, t.tokenId)));
  const federationSecret = randomBytes(36).toString('base64url'); // 48 characters

  const env = {
    DATABASE_URL: databaseUrl,
    NODE_ENV: 'production',
    // info: the access lines are part of what findings 4 and 7 look at.
    LOG_LEVEL: 'info',
    WEB_CONCURRENCY: '1',
    FEDERATION_SECRET: federationSecret,
  };
  let server: Server;
  try {
    ensureBuilt();
    server = await startServer('service', serviceNodeArgs(), env, 'GraphiQL: ');
  } catch (err) {
    await revoke();
    throw err;
  }
  // Last resort should this process die without closing (an uncaught error): no orphaned server.
  const killOnExit = () => server.child.kill('SIGKILL');
  process.once('exit', killOnExit);
  const output = new ServerOutput();
  output.attach(server.child.stdout!);
  output.attach(server.child.stderr!);
  let killedFor: string | undefined;
  return {
    base: server.url,
    tokens: [dataset.tokens[0]!.token, dataset.tokens[1]!.token],
    login: { email: ABUSE_USERS[0], password },
    federationSecret,
    productIds: dataset.productIds,
    inheritedSettings: inheritedSettings(env),
    pid: server.child.pid,
    output,
    gone() {
      const { exitCode, signalCode } = server.child;
      if (exitCode === null && signalCode === null) return undefined;
      return killedFor ?? `server exited (${exitCode ?? signalCode})`;
    },
    kill(reason) {
      killedFor = reason;
      server.child.kill('SIGKILL');
    },
    async close() {
      await stopServer(server);
      process.off('exit', killOnExit);
      await revoke();
    },
  };
}

/** Product ids of a running instance, page by page (finding 1 needs 10,000 that exist). */
async function listProductIds(base: string, token: string, wanted: number): Promise<string[]> {
  const ids: string[] = [];
  let after: string | null = null;
  while (ids.length < wanted) {
    const query =
      'query($after: String) { products(first: 100, after: $after) { data { id } paginatorInfo { hasMorePages endCursor } } }';
    const res = await postGraphQL(base, token, { query, variables: { after } }, { keepBody: true });
    if (res.status !== 200)
      throw new Error(`listing products: HTTP ${res.status} ${res.error ?? res.body?.slice(0, 200)}`);
    type Page = { data: { id: string }[]; paginatorInfo: { hasMorePages: boolean; endCursor: string | null } };
    const page = (JSON.parse(res.body!) as { data: { products: Page } }).data.products;
    ids.push(...page.data.map((p) => p.id));
    if (!page.paginatorInfo.hasMorePages) break;
    after = page.paginatorInfo.endCursor;
  }
  if (ids.length === 0) throw new Error('the instance has no products');
  return ids.slice(0, wanted);
}

export async function useRunningTarget(opts: {
  url: string;
  tokens: [string, string];
  login?: { email: string; password: string };
  federationSecret?: string;
  pid?: number;
  products: number;
}): Promise<Target> {
  const base = opts.url.replace(/\/$/, '');
  return {
    base,
    tokens: opts.tokens,
    login: opts.login,
    federationSecret: opts.federationSecret,
    productIds: await listProductIds(base, opts.tokens[0], opts.products),
    pid: opts.pid,
    gone: () => undefined,
    kill: () => {},
    close: async () => {},
  };
}
