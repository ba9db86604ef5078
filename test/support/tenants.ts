import { sql, type Kysely } from 'kysely';
import type { OutgoingHttpHeaders } from 'node:http';
import { withTenant } from '../../src/platform/tenancy.ts';
import type { TestApp } from './app.ts';
import { request, type RawResponse } from './raw-http.ts';

// Customer companies for the isolation tests, made with SQL as an operator's tool would (tenants and
// tenant_hosts have no row-level security), and requests addressed to one of them by Host, which
// fetch cannot set.

export interface TestTenant {
  id: string;
  slug: string;
  /** Its first host, the one tests address it by. */
  host: string;
}

let made = 0;

/** A new active tenant with these hosts (lowercased, no port, as the edge compares them). */
export async function createTenant(
  db: Kysely<any>,
  options: { slug?: string; hosts?: string[]; state?: 'active' | 'suspended' } = {},
): Promise<TestTenant> {
  const slug = options.slug ?? `t${process.pid}-${++made}`;
  const { rows } = await sql<{ id: string }>`
    INSERT INTO tenants (slug, name, state) VALUES (${slug}, ${`Company ${slug}`}, ${options.state ?? 'active'})
    RETURNING id
  `.execute(db);
  const id = String(rows[0]!.id);
  const hosts = options.hosts ?? [`${slug}.example.test`];
  await addHosts(db, id, hosts);
  return { id, slug, host: hosts[0] ?? '' };
}

export async function addHosts(db: Kysely<any>, tenantId: string, hosts: readonly string[]): Promise<void> {
  for (const host of hosts)
    await sql`INSERT INTO tenant_hosts (host, tenant_id) VALUES (${host}, ${tenantId})`.execute(db);
}

export async function setTenantState(db: Kysely<any>, tenantId: string, state: 'active' | 'suspended'): Promise<void> {
  await sql`UPDATE tenants SET state = ${state} WHERE id = ${tenantId}`.execute(db);
}

/** A request to `path` with this Host header. */
export function atHost(
  baseUrl: string,
  host: string,
  path: string,
  options: { method?: string; headers?: OutgoingHttpHeaders; body?: unknown; token?: string } = {},
): Promise<RawResponse> {
  return request(baseUrl, path, { ...options, headers: { host, ...options.headers } });
}

/**
 * Status and body with `id` written as <id> where it stands as a value (quoted, or quoted inside a
 * message): the answer for another tenant's id, compared with the answer for an id that exists nowhere.
 */
export function masked(res: RawResponse, id: string): { status: number; body: string } {
  const literal = id.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return { status: res.status, body: res.text.replace(new RegExp(`(\\\\?")${literal}(\\\\?")`, 'g'), '$1<id>$2') };
}

/** POST /graphql at `host`. */
export function graphqlAt(
  baseUrl: string,
  host: string,
  token: string | undefined,
  query: string,
  variables?: Record<string, unknown>,
  headers: OutgoingHttpHeaders = {},
): Promise<RawResponse> {
  return atHost(baseUrl, host, '/graphql', {
    method: 'POST',
    token,
    headers: { accept: 'application/graphql-response+json, application/json', ...headers },
    body: { query, variables },
  });
}

export function loginAt(baseUrl: string, host: string, email: string, password: string): Promise<RawResponse> {
  return atHost(baseUrl, host, '/api/v1/login', { method: 'POST', body: { email, password } });
}

/** A user of `tenantId` (real argon2, through the auth service) and a login token for it at `host`. */
export async function userAt(
  t: TestApp,
  tenantId: string,
  host: string,
  input: { email?: string; password?: string; isAdmin?: boolean } = {},
): Promise<{ id: string; email: string; password: string; token: string }> {
  const user = await withTenant(tenantId, () => t.createUser(input));
  const res = await loginAt(t.url, host, user.email, user.password);
  if (res.status !== 200)
    throw new Error(`login at ${host}: ${res.status} ${res.text}\n${t.logs.lines.slice(-3).join('\n')}`);
  return { ...user, token: res.json().data.token as string };
}

/**
 * Waits until every app routes `host` to an answer of `status` for an unauthenticated POST /graphql
 * (401 once routed to an active tenant, 404 for an unknown host, 403 for a suspended tenant): the
 * directory reloads on the tenants_changed notification.
 */
export async function untilRouted(apps: readonly TestApp[], host: string, status: number, timeoutMs = 5_000) {
  const deadline = Date.now() + timeoutMs;
  for (const t of apps) {
    for (;;) {
      const res = await atHost(t.url, host, '/graphql', { method: 'POST', body: { query: '{ __typename }' } });
      if (res.status === status) break;
      if (Date.now() > deadline) throw new Error(`${host} still answers ${res.status}, not ${status}: ${res.text}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}
