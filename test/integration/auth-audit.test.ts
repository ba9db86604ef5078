import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.ts';
import { loginFrom, request } from '../support/raw-http.ts';

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp({ env: { LOG_LEVEL: 'debug', LOGIN_MAX_ATTEMPTS: '2' } });
});
afterAll(() => t?.close());

describe('audit log', () => {
  it('records each auth event with user id, IP and time, and never a token, secret, password or Authorization value', async () => {
    const user = await t.createUser({ email: 'audited@example.com', password: 'Pa55word-under-audit' });
    const admin = await t.createUser({
      email: 'auditor@example.com',
      password: 'admin-secret-password',
      isAdmin: true,
    });
    const secrets: string[] = [user.password, admin.password];
    const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

    // login ok (three tokens), then a logout, an own revocation and an admin revocation
    const tokens: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await loginFrom(t.url, '127.0.0.21', user.email, user.password);
      expect(res.status).toBe(200);
      tokens.push(res.json().data.token);
    }
    const adminToken = (await loginFrom(t.url, '127.0.0.22', admin.email, admin.password)).json().data.token;
    tokens.push(adminToken);
    secrets.push(...tokens, ...tokens.map((tk) => tk.split('|')[1]!));

    expect(
      (
        await request(t.url, '/api/v1/logout', {
          method: 'POST',
          headers: bearer(tokens[0]!),
          localAddress: '127.0.0.21',
        })
      ).status,
    ).toBe(200);
    const ownId = tokens[1]!.split('|')[0];
    expect(
      (
        await request(t.url, `/api/v1/tokens/${ownId}`, {
          method: 'DELETE',
          headers: bearer(tokens[2]!),
          localAddress: '127.0.0.21',
        })
      ).status,
    ).toBe(200);
    const otherId = tokens[2]!.split('|')[0];
    expect(
      (
        await request(t.url, `/api/v1/tokens/${otherId}`, {
          method: 'DELETE',
          headers: bearer(adminToken),
          localAddress: '127.0.0.22',
        })
      ).status,
    ).toBe(200);

    // Requests carrying credentials that must not show up anywhere: a GraphQL call
    // and a REST call with a forged token, a wrong password, an unknown email.
    const forged = `${tokens[3]!.split('|')[0]}|ForgedSecretValue0123456789abcdefghijklmnop`;
    secrets.push(forged, 'ForgedSecretValue0123456789abcdefghijklmnop');
    await t.graphql('{ products(first: 1) { data { id } } }', { token: adminToken });
    await request(t.url, '/api/v1/tokens', { headers: bearer(forged) });
    const wrongPasswords = ['wrong-Password-one', 'wrong-Password-two'];
    secrets.push(...wrongPasswords, 'unknown-user-password');
    for (const pw of wrongPasswords) expect((await loginFrom(t.url, '127.0.0.23', user.email, pw)).status).toBe(401);
    expect((await loginFrom(t.url, '127.0.0.23', 'ghost@example.com', 'unknown-user-password')).status).toBe(401);
    // login throttled (third attempt for the same email and IP)
    expect((await loginFrom(t.url, '127.0.0.23', user.email, user.password)).status).toBe(429);

    const lines = t.logs.lines.map((l) => JSON.parse(l));
    const events = (name: string) => lines.filter((l) => l.event === name);
    const isoTime = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

    expect(events('login.ok')).toHaveLength(4);
    expect(events('login.ok')[0]).toMatchObject({
      userId: user.id,
      ip: '127.0.0.21',
      time: expect.stringMatching(isoTime),
    });
    expect(events('login.failed')).toEqual([
      expect.objectContaining({ userId: user.id, ip: '127.0.0.23', time: expect.stringMatching(isoTime) }),
      expect.objectContaining({ userId: user.id, ip: '127.0.0.23' }),
      expect.objectContaining({ userId: null, ip: '127.0.0.23' }),
    ]);
    expect(events('login.throttled')).toEqual([
      expect.objectContaining({ userId: user.id, ip: '127.0.0.23', time: expect.stringMatching(isoTime) }),
    ]);
    expect(events('logout')).toEqual([
      expect.objectContaining({
        userId: user.id,
        ip: '127.0.0.21',
        tokenId: tokens[0]!.split('|')[0],
        time: expect.stringMatching(isoTime),
      }),
    ]);
    expect(events('token.revoked')).toEqual([
      expect.objectContaining({ userId: user.id, ownerId: user.id, tokenId: ownId, ip: '127.0.0.21' }),
      expect.objectContaining({ userId: admin.id, ownerId: user.id, tokenId: otherId, ip: '127.0.0.22' }),
    ]);

    const text = t.logs.text;
    for (const secret of secrets) expect(text).not.toContain(secret);
    expect(text).not.toMatch(/bearer/i);
    expect(text.toLowerCase()).not.toContain('authorization');
    const hashes = await t.database.handle.db.selectFrom('personal_access_tokens').select('token_hash').execute();
    for (const { token_hash } of hashes) expect(text).not.toContain(token_hash.trim());
  });
});
