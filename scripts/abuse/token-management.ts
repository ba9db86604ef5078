import { concurrentColumns, record, type Finding, type FindingContext } from './finding.ts';
import { postGraphQL, send, type Exchange } from './http.ts';
import { thousands } from './measure.ts';

const json = { 'content-type': 'application/json' };
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const idOf = (token: string) => token.split('|')[0]!;
const status = (x: Exchange) => (x.status ? String(x.status) : `– (${x.error})`);

/** POST /api/v1/tokens; the new token's text when one came back. */
async function mint(
  base: string,
  caller: string,
  name: string,
  abilities?: string[],
): Promise<Exchange & { token?: string }> {
  const body = JSON.stringify(abilities === undefined ? { name } : { name, abilities });
  const x = await send(base, {
    method: 'POST',
    path: '/api/v1/tokens',
    body,
    headers: { ...bearer(caller), ...json },
    keepBody: true,
  });
  const token = x.status === 201 ? (JSON.parse(x.body!) as { data: { token: string } }).data.token : undefined;
  return { ...x, token };
}

const revoke = (base: string, caller: string, id: string) =>
  send(base, { method: 'DELETE', path: `/api/v1/tokens/${id}`, headers: bearer(caller), keepBody: true });

/** Does this token still read the catalogue? 200 yes, 401 no. */
const works = (base: string, token: string) =>
  postGraphQL(base, token, { query: '{ products(first: 1) { data { id } } }' });

async function login(ctx: FindingContext): Promise<{ token: string; isAdmin: boolean }> {
  const { login: creds, base } = ctx.target;
  if (!creds) throw new Error('needs --email and --password (an administrator, as in the issue)');
  const x = await send(base, {
    method: 'POST',
    path: '/api/v1/login',
    body: JSON.stringify(creds),
    headers: json,
    keepBody: true,
  });
  if (x.status !== 200) throw new Error(`login: HTTP ${x.status} ${x.body?.slice(0, 120)}`);
  const data = (JSON.parse(x.body!) as { data: { token: string; user: { is_admin?: boolean } } }).data;
  return { token: data.token, isAdmin: data.user.is_admin === true };
}

/**
 * 10. Issue 20, finding 1: what a token that was never meant to manage tokens can do to them. The
 * logged-in user (--email/--password) should be an administrator, as in the issue; the other user is --token2.
 * Every token made here is revoked at the end.
 */
async function run(ctx: FindingContext): Promise<void> {
  const { base, tokens } = ctx.target;
  const made: string[] = [];
  const keep = (x: { token?: string }) => (x.token && made.push(x.token), x.token);
  let admin = await login(ctx);
  const who = admin.isAdmin ? 'administrator' : 'user (not an administrator)';

  await record(
    ctx,
    { finding: '10', sent: `abilities: [] token of an ${who} DELETEs another user's token` },
    async () => {
      const victim = await mint(base, tokens[1], 'abuse-10-victim');
      const empty = keep(await mint(base, admin.token, 'abuse-10-empty', []));
      if (!victim.token || !empty)
        return {
          status: '–',
          bytes: '–',
          ms: '–',
          notes: `setup: victim ${status(victim)}, empty ${empty ? 201 : 'refused'}`,
        };
      const x = await revoke(base, empty, idOf(victim.token));
      const after = await works(base, victim.token);
      await revoke(base, tokens[1], idOf(victim.token));
      return {
        status: status(x),
        bytes: thousands(x.bytes),
        ms: thousands(x.ms),
        notes: `the other user's token afterwards: ${status(after)}`,
      };
    },
  );

  await record(
    ctx,
    { finding: '10', sent: `catalog:read token mints a child, the child DELETEs the ${who}'s own * login token` },
    async () => {
      const reader = keep(await mint(base, admin.token, 'abuse-10-reader', ['catalog:read']))!;
      const child = await mint(base, reader, 'abuse-10-child', ['catalog:read']);
      keep(child);
      // Without a child, the reader itself tries.
      const x = await revoke(base, child.token ?? reader, idOf(admin.token));
      const after = await works(base, admin.token);
      return {
        status: `mint ${status(child)}, DELETE ${status(x)}`,
        bytes: thousands(x.bytes),
        ms: thousands(x.ms),
        notes: `${child.token ? 'by the child' : 'no child: by the reader itself'}; the login token afterwards: ${status(after)}`,
      };
    },
  );
  if ((await works(base, admin.token)).status !== 200) admin = await login(ctx);

  let children: string[] = [];
  await record(ctx, { finding: '10', sent: 'catalog:read token mints 200 child tokens at once' }, async () => {
    const reader = keep(await mint(base, admin.token, 'abuse-10-reader-200', ['catalog:read']))!;
    const started = performance.now();
    const xs = await Promise.all(
      Array.from({ length: 200 }, (_, i) => mint(base, reader, `abuse-10-child-${i}`, ['catalog:read'])),
    );
    children = xs.map(keep).filter((t): t is string => t !== undefined);
    return concurrentColumns(xs, performance.now() - started);
  });

  await record(
    ctx,
    { finding: '10', sent: 'a * token mints a child, the parent is revoked, the child reads the catalogue' },
    async () => {
      const parent = keep(await mint(base, admin.token, 'abuse-10-parent', ['*']))!;
      const child = keep(await mint(base, parent, 'abuse-10-orphan', ['catalog:read']));
      const gone = await revoke(base, admin.token, idOf(parent));
      if (!child) return { status: '–', bytes: '–', ms: '–', notes: `the parent could not mint a child` };
      const x = await works(base, child);
      return {
        ...{ status: status(x), bytes: thousands(x.bytes), ms: thousands(x.ms) },
        notes: `parent DELETE ${status(gone)}; status is the child's read afterwards`,
      };
    },
  );

  await record(
    ctx,
    { finding: '10', sent: `GET /api/v1/tokens with a catalog:read token (a child of one where it could be minted)` },
    async () => {
      const lister = children[0] ?? keep(await mint(base, admin.token, 'abuse-10-lister', ['catalog:read']))!;
      const x = await send(base, { path: '/api/v1/tokens', headers: bearer(lister), keepBody: true });
      const listed = x.status === 200 ? (JSON.parse(x.body!) as { data: unknown[] }).data.length : 0;
      return {
        status: status(x),
        bytes: thousands(x.bytes),
        ms: thousands(x.ms),
        notes: x.status === 200 ? `listed ${listed} of the owner's tokens` : 'nothing listed',
      };
    },
  );

  await record(ctx, { finding: '10', sent: 'the * login token mints 250 tokens one after another' }, async () => {
    const started = performance.now();
    const xs: Exchange[] = [];
    for (let i = 0; i < 250; i++) {
      const x = await mint(base, admin.token, `abuse-10-cap-${i}`);
      keep(x);
      xs.push(x);
    }
    const first422 = xs.findIndex((x) => x.status === 422);
    return {
      ...concurrentColumns(xs, performance.now() - started),
      notes:
        first422 < 0
          ? 'no refusal'
          : `first 422 at the ${first422 + 1}th: ${(JSON.parse(xs[first422]!.body!) as { message: string }).message}`,
    };
  });

  // Revoked with the login token (an administrator's revokes any token on the old code, its own on the new).
  for (const token of made) await revoke(base, admin.token, idOf(token));
  await revoke(base, admin.token, idOf(admin.token));
}

export const tokenManagement: Finding = {
  number: 10,
  title: 'Token management by read-only tokens (issue 20, finding 1)',
  run,
};
