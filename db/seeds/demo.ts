import { randomBytes } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import { countUsers, type AuthService } from '../../src/modules/auth/index.ts';
import { countProducts } from '../../src/modules/catalog/tools.ts';
import type { Database } from '../../src/modules/index.ts';
import { seedCatalog } from './catalog.ts';
import { seedConfigurableProducts } from './configurable.ts';

export const DEMO_EMAIL = 'demo@example.com';

/** What `npm start` prints when nobody can sign in yet (a new PostgreSQL database). */
export const NO_USER_HINT =
  '\nThe database has no user yet: nobody can sign in. Create one with\n' +
  '  npm run admin -- user:create --email you@example.com --name "Your Name" --admin\n' +
  'or, on an empty database, a demo catalogue and user with: npm run db:seed -- --demo\n\n';
const DEMO_PRODUCTS = 50;
const DEMO_SEED = 1;

/**
 * Fills an empty embedded database with a demo catalogue and one demo user: 50 generated products,
 * then two configurable ones with prices and rules (./configurable.ts), all priced in the instance's
 * CATALOG_CURRENCY (as a product created without a currency is). main.ts calls it for the embedded
 * database only: a PostgreSQL server is seeded only when asked (`npm run db:seed -- --demo`). Returns the generated credentials
 * (to be shown once) or null when the database already had data.
 */
export async function seedDemoIfEmpty(
  db: Kysely<Database>,
  auth: AuthService,
  currency: string,
): Promise<{ email: string; password: string } | null> {
  if ((await countUsers(db)) > 0 || (await countProducts(db)) > 0) return null;
  await seedCatalog(db, { products: DEMO_PRODUCTS, seed: DEMO_SEED });
  await seedConfigurableProducts(db);
  await sql`UPDATE products SET currency = ${currency}`.execute(db);
  const password = randomBytes(15).toString('base64url');
  await auth.createUser({ name: 'Demo User', email: DEMO_EMAIL, password, isAdmin: true });
  return { email: DEMO_EMAIL, password };
}
