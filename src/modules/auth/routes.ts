import { z } from 'zod';
import { readObjectBody } from '../../http/body.ts';
import { sendJson } from '../../http/respond.ts';
import type { Route } from '../../http/router.ts';
import { HttpError, type FieldErrors } from '../../platform/errors.ts';
import { presentUser, type AuthService } from './service.ts';

/** Login, logout and the other token routes; bodies as the original service shaped them. */

const REST_BODY_LIMIT = 16 * 1024;
const MAX_PASSWORD_BYTES = 1024;
const NO_STORE = { 'Cache-Control': 'no-store' };

const loginSchema = z.object({
  email: z
    .string({ error: (i) => (i.input === undefined ? 'The email field is required.' : 'The email field must be a string.') })
    .trim()
    .min(1, { error: 'The email field is required.' })
    .max(254, { error: 'The email field must not be greater than 254 characters.' })
    .pipe(z.email({ error: 'The email field must be a valid email address.' })),
  password: z
    .string({
      error: (i) => (i.input === undefined ? 'The password field is required.' : 'The password field must be a string.'),
    })
    .min(1, { error: 'The password field is required.' })
    .refine((p) => Buffer.byteLength(p, 'utf8') <= MAX_PASSWORD_BYTES, {
      error: `The password field must not be greater than ${MAX_PASSWORD_BYTES} bytes.`,
    }),
});

/** Laravel's 422 shape: the first message (and how many more), then every message by field. */
export function validationError(issues: readonly z.core.$ZodIssue[]): HttpError {
  const errors: FieldErrors = {};
  for (const issue of issues) {
    const field = String(issue.path[0] ?? 'body');
    (errors[field] ??= []).push(issue.message);
  }
  const messages = Object.values(errors).flat();
  const more = messages.length - 1;
  const message = more > 0 ? `${messages[0]} (and ${more} more error${more > 1 ? 's' : ''})` : messages[0]!;
  return new HttpError(422, message, { errors });
}

export function createAuthRoutes(auth: AuthService): Route[] {
  return [
    {
      method: 'POST',
      path: '/api/v1/login',
      auth: false,
      async handle({ req, res, ip }) {
        const parsed = loginSchema.safeParse(await readObjectBody(req, REST_BODY_LIMIT));
        if (!parsed.success) throw validationError(parsed.error.issues);
        const result = await auth.login({ ...parsed.data, ip });
        if (!result.ok) throw new HttpError(401, 'Invalid credentials.', { headers: NO_STORE });
        sendJson(res, 200, { success: true, data: { token: result.token, user: presentUser(result.user) } }, NO_STORE);
      },
    },
    {
      method: 'POST',
      path: '/api/v1/logout',
      auth: true,
      async handle({ res, session, ip }) {
        await auth.logout(session!, ip);
        sendJson(res, 200, { success: true, message: 'Logged out.' }, NO_STORE);
      },
    },
  ];
}
