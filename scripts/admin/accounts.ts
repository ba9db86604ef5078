/** The user, token and retention commands of `npm run admin` (admin.ts loads this file only for them). */
import { z } from 'zod';
import {
  createAuthService,
  DuplicateEmailError,
  normaliseEmail,
  tokenSchema,
  type AuthService,
} from '../../src/modules/auth/index.ts';
import { ABILITIES } from '../../src/modules/index.ts';
import { deleteConfigurationsOlderThan } from '../../src/modules/configurations/index.ts';
import { ValidationFailed } from '../../src/platform/errors.ts';
import { parseRowId } from '../../src/platform/ids.ts';
import { CliError, EXIT_USAGE, formatTable, parseCommandLine, parseWholeNumber, usageError } from '../lib/cli.ts';
import { TENANT_OPTION, withTenantDatabase, type CliContext } from '../lib/database.ts';
import { promptHidden, readStdin } from '../lib/prompt.ts';

const MIN_PASSWORD_LENGTH = 8;
// The login route refuses longer passwords, so a longer one could never be used.
const MAX_PASSWORD_BYTES = 1024;
const MAX_NAME_LENGTH = 255;

const emailSchema = z.string().max(254).pipe(z.email());

function parseEmail(raw: string | undefined): string {
  if (raw === undefined || raw.trim() === '') throw usageError('--email is required.');
  const email = normaliseEmail(raw);
  if (!emailSchema.safeParse(email).success) {
    throw usageError(`--email must be a valid email address of at most 254 characters, got '${raw}'.`);
  }
  return email;
}

function checkPassword(password: string): void {
  if ([...password].length < MIN_PASSWORD_LENGTH) {
    throw new CliError(`The password must be at least ${MIN_PASSWORD_LENGTH} characters.`);
  }
  if (Buffer.byteLength(password, 'utf8') > MAX_PASSWORD_BYTES) {
    throw new CliError(`The password must not be greater than ${MAX_PASSWORD_BYTES} bytes.`);
  }
}

async function readPassword(fromStdin: boolean): Promise<string> {
  if (fromStdin) return readStdin();
  if (!process.stdin.isTTY) {
    throw new CliError('No terminal to ask for the password on: pipe it in and pass --password-stdin.', EXIT_USAGE);
  }
  const password = await promptHidden('Password: ');
  checkPassword(password);
  if ((await promptHidden('Password (again): ')) !== password) throw new CliError('The passwords do not match.');
  return password;
}

export async function userCreate(args: string[]): Promise<void> {
  const { values } = parseCommandLine(args, {
    email: { type: 'string' },
    name: { type: 'string' },
    admin: { type: 'boolean', default: false },
    'password-stdin': { type: 'boolean', default: false },
    ...TENANT_OPTION,
  });
  const email = parseEmail(values.email);
  const name = values.name?.trim() ?? '';
  if (name === '' || name.length > MAX_NAME_LENGTH) {
    throw usageError(`--name is required (1 to ${MAX_NAME_LENGTH} characters).`);
  }
  const password = await readPassword(values['password-stdin']);
  checkPassword(password);

  await withTenantDatabase(values.tenant, async (ctx) => {
    try {
      const user = await authService(ctx).createUser({ name, email, password, isAdmin: values.admin });
      process.stdout.write(
        `Created user ${user.id} <${user.email}>${user.isAdmin ? ' (administrator)' : ''} in ${ctx.target}.\n`,
      );
    } catch (err) {
      if (err instanceof DuplicateEmailError) throw new CliError(err.message);
      throw err;
    }
  });
}

/** Through the auth service, as the server does: hashing, listing and revoking live in one place. */
const authService = (ctx: CliContext): AuthService =>
  createAuthService({ db: ctx.database.db, config: ctx.config.auth, logger: ctx.logger });

const formatTime = (d: Date | null) => (d ? d.toISOString().replace(/\.\d{3}Z$/, 'Z') : '-');

export async function tokenList(args: string[]): Promise<void> {
  const { values } = parseCommandLine(args, { email: { type: 'string' }, ...TENANT_OPTION });
  const email = values.email === undefined ? undefined : parseEmail(values.email);

  await withTenantDatabase(values.tenant, async (ctx) => {
    const auth = authService(ctx);
    let userId: string | undefined;
    if (email !== undefined) {
      const user = await auth.findUser(email);
      if (!user) throw new CliError(`No user with email ${email}.`);
      userId = user.id;
    }
    const tokens = await auth.listTokens({ userId });
    if (tokens.length === 0) {
      process.stdout.write(email ? `No tokens for ${email}.\n` : 'No tokens.\n');
      return;
    }
    const now = Date.now();
    const rows = tokens.map((t) => {
      const expired = t.expiresAt !== null && t.expiresAt.getTime() <= now;
      return [
        t.id,
        t.email,
        t.name,
        t.abilities.join(','),
        formatTime(t.createdAt),
        formatTime(t.lastUsedAt),
        formatTime(t.ownExpiresAt),
        expired ? 'expired' : 'active',
      ];
    });
    process.stdout.write(
      formatTable(['id', 'user', 'name', 'abilities', 'created_at', 'last_used_at', 'expires_at', 'status'], rows),
    );
  });
}

export async function tokenCreate(args: string[]): Promise<void> {
  const { values } = parseCommandLine(args, {
    email: { type: 'string' },
    name: { type: 'string' },
    abilities: { type: 'string' },
    'expires-at': { type: 'string' },
    ...TENANT_OPTION,
  });
  const email = parseEmail(values.email);
  const parsed = tokenSchema(ABILITIES).safeParse({
    name: values.name ?? '',
    abilities: values.abilities?.split(',').map((a) => a.trim()),
    expires_at: values['expires-at'],
  });
  if (!parsed.success)
    throw usageError(
      parsed.error.issues.map((i) => `--${String(i.path[0]).replace('_', '-')}: ${i.message}`).join('\n'),
    );

  await withTenantDatabase(values.tenant, async (ctx) => {
    const auth = authService(ctx);
    const user = await auth.findUser(email);
    if (!user) throw new CliError(`No user with email ${email}.`);
    const created = await auth
      .createToken({
        owner: { id: user.id },
        // The shell is the operator: any ability, no caller token to outlive or descend from.
        caller: { abilities: ['*'], expiresAt: null },
        name: parsed.data.name,
        abilities: parsed.data.abilities,
        expiresAt: parsed.data.expires_at,
      })
      .catch((err: unknown) => {
        if (err instanceof ValidationFailed)
          throw new CliError(`${email}: ${Object.values(err.errors).flat().join(' ')}`);
        throw err;
      });
    const { token, summary } = created;
    process.stderr.write(
      `Created token ${summary.id} "${summary.name}" for ${email} in ${ctx.target}: abilities ${summary.abilities.join(', ')}, ` +
        `expires ${summary.expiresAt ? formatTime(summary.expiresAt) : 'never'}. It is shown once:\n`,
    );
    process.stdout.write(`${token}\n`);
  });
}

export async function tokenRevoke(args: string[]): Promise<void> {
  const { values, positionals } = parseCommandLine(args, TENANT_OPTION, 1);
  const raw = positionals[0];
  if (raw === undefined) throw usageError('token:revoke needs the id of the token (see token:list).');
  if (!/^\d+$/.test(raw)) throw usageError(`A token id is a positive whole number, got '${raw}'.`);
  // An id no row can have (beyond bigint) is simply not there.
  const id = parseRowId(raw);

  await withTenantDatabase(values.tenant, async (ctx) => {
    // No session: the operator may revoke any token.
    const deleted = id !== null && (await authService(ctx).revokeToken(id));
    if (!deleted) throw new CliError(`No token with id ${raw}.`);
    process.stdout.write(`Revoked token ${raw}.\n`);
  });
}

export async function tokensPruneExpired(args: string[]): Promise<void> {
  const { values } = parseCommandLine(args, { hours: { type: 'string', default: '24' }, ...TENANT_OPTION });
  const hours = parseWholeNumber('--hours', values.hours, { min: 0, max: 24 * 365 * 100 });

  await withTenantDatabase(values.tenant, async (ctx) => {
    const lifetimeMinutes = ctx.config.auth.tokens.expirationMinutes;
    const deleted = await authService(ctx).pruneExpiredTokens(hours);
    process.stdout.write(
      `Deleted ${deleted} token${deleted === 1 ? '' : 's'} expired for more than ${hours} hour${hours === 1 ? '' : 's'}` +
        (lifetimeMinutes === undefined ? '' : ` (TOKEN_EXPIRATION_MINUTES=${lifetimeMinutes})`) +
        '.\n',
    );
  });
}

export async function configurationsPrune(args: string[]): Promise<void> {
  const { values } = parseCommandLine(args, { days: { type: 'string' }, ...TENANT_OPTION });
  await withTenantDatabase(values.tenant, async (ctx) => {
    const days =
      values.days === undefined
        ? ctx.config.configurations.retentionDays
        : parseWholeNumber('--days', values.days, { min: 1, max: 36_500 });
    if (days === undefined) {
      process.stdout.write(
        'CONFIGURATION_RETENTION_DAYS is unset and no --days given: saved configurations are kept.\n',
      );
      return;
    }
    const deleted = await deleteConfigurationsOlderThan(ctx.database.db, days);
    process.stdout.write(
      `Deleted ${deleted} configuration${deleted === 1 ? '' : 's'} saved more than ${days} day${days === 1 ? '' : 's'} ago.\n`,
    );
  });
}
