import type { ServerResponse } from 'node:http';
import { Counter, type Registry } from 'prom-client';
import { z } from 'zod';
import { readObjectBody } from '../../http/body.ts';
import { httpErrorOf, sendJson } from '../../http/respond.ts';
import type { Route, RouteContext } from '../../http/router.ts';
import { isDatabaseUnavailable } from '../../platform/db-errors.ts';
import {
  Forbidden,
  HttpError,
  NO_STORE,
  NotFound,
  TooManyRequests,
  Unavailable,
  ValidationFailed,
  type FieldErrors,
} from '../../platform/errors.ts';
import { parseRowId } from '../../platform/ids.ts';
import { isStorableInstant, LATEST_INSTANT } from '../../platform/instants.ts';
import type { Ability, Session, SessionUser } from '../../platform/session.ts';
import type { AuthService, TokenSummary } from './service.ts';
import { forbiddenTextMessage, hasForbiddenText, isInvisibleText } from '../../platform/text.ts';

// Bodies as the original service shaped them.

/** Listing, creating and revoking tokens; logging out needs no ability (any token may end itself). */
export const TOKENS_MANAGE = 'tokens:manage';

const REST_BODY_LIMIT = 16 * 1024;
const MAX_PASSWORD_BYTES = 1024;

type LoginOutcome = 'ok' | 'failed' | 'throttled' | 'invalid' | 'unavailable' | 'error';

function createLoginCounter(registry: Registry) {
  const logins = new Counter({
    name: 'auth_logins_total',
    help: 'Login attempts by outcome: ok, failed (bad credentials), throttled, invalid (bad request), unavailable (503: database away, hashing at capacity), error.',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  for (const outcome of ['ok', 'failed', 'throttled'] as const) logins.inc({ outcome }, 0);
  return (outcome: LoginOutcome) => logins.inc({ outcome });
}

function failedLoginOutcome(err: unknown): LoginOutcome {
  const refusal = httpErrorOf(err);
  if (refusal) return refusal.status < 500 ? 'invalid' : 'unavailable';
  return isDatabaseUnavailable(err) ? 'unavailable' : 'error';
}

/** Before the body is read: a token without the ability learns nothing else from the answer. */
function requireTokensManage(session: Session): void {
  if (!session.scopes.includes(TOKENS_MANAGE)) throw new Forbidden();
}

/** Set before anything can fail, so error answers carry it too (writeHead merges it in). */
function noStore(res: ServerResponse): void {
  res.setHeader('Cache-Control', 'no-store');
}

/** The user record of the login response, as the original service shaped it. */
function presentUser(user: SessionUser) {
  return {
    id: Number(user.id),
    name: user.name,
    email: user.email,
    is_admin: user.isAdmin,
    created_at: user.createdAt.toISOString(),
  };
}

function presentToken(token: TokenSummary) {
  return {
    id: Number(token.id),
    name: token.name,
    abilities: token.abilities,
    created_at: token.createdAt.toISOString(),
    last_used_at: token.lastUsedAt?.toISOString() ?? null,
    expires_at: token.expiresAt?.toISOString() ?? null,
    current: token.current,
  };
}

const loginSchema = z.object({
  email: z
    .string({
      error: (i) => (i.input === undefined ? 'The email field is required.' : 'The email field must be a string.'),
    })
    .trim()
    .min(1, { error: 'The email field is required.' })
    .max(254, { error: 'The email field must not be greater than 254 characters.' })
    .pipe(z.email({ error: 'The email field must be a valid email address.' })),
  password: z
    .string({
      error: (i) =>
        i.input === undefined ? 'The password field is required.' : 'The password field must be a string.',
    })
    .min(1, { error: 'The password field is required.' })
    .refine((p) => Buffer.byteLength(p, 'utf8') <= MAX_PASSWORD_BYTES, {
      error: `The password field must not be greater than ${MAX_PASSWORD_BYTES} bytes.`,
    }),
});

/** POST /api/v1/tokens: Sanctum's createToken(name, abilities, expiresAt). */
export function tokenSchema(declared: readonly Ability[]) {
  const names = ['*', ...declared.map((a) => a.name)];
  return z.object({
    name: z
      .string({
        error: (i) => (i.input === undefined ? 'The name field is required.' : 'The name field must be a string.'),
      })
      .trim()
      // Empty, or nothing a reader would see (zero-width spaces…): the same as no name.
      .refine((name) => !isInvisibleText(name), { error: 'The name field is required.', abort: true })
      .max(255, { error: 'The name field must not be greater than 255 characters.' })
      .refine((name) => !hasForbiddenText(name), { error: forbiddenTextMessage('name') }),
    abilities: z
      .array(
        z.string().refine((a) => names.includes(a), { error: `Each ability must be one of: ${names.join(', ')}.` }),
        {
          error: 'The abilities field must be a list of strings.',
        },
      )
      .refine((list) => list.length <= names.length * 2, { error: 'The abilities field has too many items.' })
      .optional(),
    expires_at: z
      .string({ error: 'The expires at field must be a date and time (ISO 8601).' })
      .pipe(z.iso.datetime({ offset: true, error: 'The expires at field must be a date and time (ISO 8601).' }))
      .transform((v) => new Date(v))
      .refine((d) => d.getTime() > Date.now(), { error: 'The expires at field must be a date after now.', abort: true })
      .refine(isStorableInstant, { error: `The expires at field must be a date no later than ${LATEST_INSTANT}.` })
      .optional(),
  });
}

/** Every message by field: the REST edge answers Laravel's 422, the first message (and how many more) beside them. */
export function validationError(issues: readonly z.core.$ZodIssue[]): ValidationFailed {
  const errors: FieldErrors = {};
  for (const issue of issues) {
    const field = String(issue.path[0] ?? 'body');
    (errors[field] ??= []).push(issue.message);
  }
  return new ValidationFailed(errors);
}

/** POST /api/v1/login: the original service's bodies; every attempt is counted by its outcome. */
function loginHandler(auth: AuthService, countLogin: (outcome: LoginOutcome) => void) {
  return async function login({ req, res, ip }: RouteContext): Promise<void> {
    noStore(res);
    let outcome: LoginOutcome | undefined;
    try {
      const parsed = loginSchema.safeParse(await readObjectBody(req, REST_BODY_LIMIT));
      if (!parsed.success) throw validationError(parsed.error.issues);
      const result = await auth.login({ ...parsed.data, ip });
      if (result.ok) {
        outcome = 'ok';
        sendJson(res, 200, { success: true, data: { token: result.token, user: presentUser(result.user) } }, NO_STORE);
        return;
      }
      switch (result.reason) {
        case 'invalid-credentials':
          outcome = 'failed';
          throw new HttpError(401, 'Invalid credentials.', { headers: NO_STORE });
        case 'throttled':
          outcome = 'throttled';
          throw new TooManyRequests('Too Many Attempts.', result.retryAfterSeconds);
        case 'busy':
          outcome = 'unavailable';
          throw new Unavailable('Too many logins at once. Please retry shortly.', result.retryAfterSeconds);
      }
    } catch (err) {
      outcome ??= failedLoginOutcome(err);
      throw err;
    } finally {
      countLogin(outcome ?? 'error');
    }
  };
}

/** The caller's tokens: list, create and revoke them (tokens:manage). */
function tokenRoutes(auth: AuthService, newToken: ReturnType<typeof tokenSchema>): Route[] {
  return [
    {
      method: 'GET',
      path: '/api/v1/tokens',
      auth: true,
      async handle({ res, session }) {
        noStore(res);
        requireTokensManage(session!);
        const tokens = await auth.listTokens({ userId: session!.user.id, currentTokenId: session!.tokenId });
        sendJson(res, 200, { success: true, data: tokens.map(presentToken) }, NO_STORE);
      },
    },
    {
      method: 'POST',
      path: '/api/v1/tokens',
      auth: true,
      async handle({ req, res, session, ip }) {
        noStore(res);
        requireTokensManage(session!);
        const parsed = newToken.safeParse(await readObjectBody(req, REST_BODY_LIMIT));
        if (!parsed.success) throw validationError(parsed.error.issues);
        const { name, abilities: asked, expires_at: expiresAt } = parsed.data;
        const { token, summary } = await auth.createToken({
          owner: session!.user,
          caller: session!,
          name,
          abilities: asked,
          expiresAt,
          ip,
        });
        const { current: _current, last_used_at: _unused, ...shown } = presentToken(summary);
        sendJson(res, 201, { success: true, data: { token, ...shown } }, NO_STORE);
      },
    },
    {
      method: 'DELETE',
      path: '/api/v1/tokens/:id',
      auth: true,
      async handle({ res, session, params, ip }) {
        noStore(res);
        requireTokensManage(session!);
        const id = parseRowId(params.id ?? '');
        // Not a possible id, not theirs, or gone: all the same 404, so ids of other users' tokens stay unknown.
        const revoked = id !== null && (await auth.revokeToken(id, { session: session!, ip }));
        if (!revoked) throw new NotFound('Token not found.');
        sendJson(res, 200, { success: true, message: 'Token revoked.' }, NO_STORE);
      },
    },
  ];
}

export function createAuthRoutes(auth: AuthService, registry: Registry, abilities: readonly Ability[]): Route[] {
  return [
    { method: 'POST', path: '/api/v1/login', auth: false, handle: loginHandler(auth, createLoginCounter(registry)) },
    {
      method: 'POST',
      path: '/api/v1/logout',
      auth: true,
      async handle({ res, session, ip }) {
        noStore(res);
        await auth.logout(session!, ip);
        sendJson(res, 200, { success: true, message: 'Logged out.' }, NO_STORE);
      },
    },
    ...tokenRoutes(auth, tokenSchema(abilities)),
  ];
}
