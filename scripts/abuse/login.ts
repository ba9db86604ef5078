import { randomBytes } from 'node:crypto';
import { columns, record, type Finding, type FindingContext } from './finding.ts';
import { send } from './http.ts';

/**
 * 5. Login from another site: a browser sends text/plain and form posts
 * cross-site without a preflight. JSON is the control (it needs one, and must
 * keep working); the fixed service answers the other two 415.
 */
async function run(ctx: FindingContext): Promise<void> {
  const { target } = ctx;
  // Without real credentials (--url alone) a made-up user: a 401 still shows the body was read.
  const nobody = { email: `nobody-${randomBytes(4).toString('hex')}@abuse.invalid`, password: 'not-a-password' };
  const { email, password } = target.login ?? nobody;
  const credentials = target.login ? 'real credentials' : 'made-up credentials';
  const cases = [
    { type: 'application/json', body: JSON.stringify({ email, password }), label: 'JSON (control)' },
    { type: 'text/plain', body: JSON.stringify({ email, password }), label: 'JSON body' },
    {
      type: 'application/x-www-form-urlencoded',
      body: new URLSearchParams({ email, password }).toString(),
      label: 'email=…&password=…',
    },
  ];
  for (const c of cases) {
    await record(ctx, { finding: '5', sent: `POST /api/v1/login Content-Type: ${c.type}, ${c.label}` }, async () => {
      const headers = { 'content-type': c.type };
      const x = await send(target.base, {
        method: 'POST',
        path: '/api/v1/login',
        headers,
        body: c.body,
        keepBody: true,
      });
      let notes = credentials;
      const token = x.status === 200 ? (JSON.parse(x.body!) as { data: { token: string } }).data.token : undefined;
      if (token) {
        // Each successful login issues a token: revoke it through the front door.
        const out = await send(target.base, {
          method: 'POST',
          path: '/api/v1/logout',
          headers: { authorization: `Bearer ${token}` },
        });
        notes += `; a token was issued (logout: ${out.status})`;
      }
      return { ...columns(x), notes };
    });
  }
}

export const loginContentType: Finding = { number: 5, title: 'Login cross-site (text/plain, form)', run };
