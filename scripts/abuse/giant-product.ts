import pg from 'pg';
import { columns, record, type Finding, type FindingContext } from './finding.ts';
import { postGraphQL } from './http.ts';

const SKU = 'ABUSE-20-GIANT';
/** 100 steps × 100 components × 30 customisations: 300,000 customisations, as in the issue. */
const SHAPE = {
  steps: Number(process.env.ABUSE_GIANT_STEPS ?? 100),
  components: Number(process.env.ABUSE_GIANT_COMPONENTS ?? 100),
  customisations: Number(process.env.ABUSE_GIANT_CUSTOMISATIONS ?? 30),
};
const FULL =
  'id name sku steps { id name order components { id name position customisations { id name type price } } }';

/**
 * Inserts the product straight into the database (DATABASE_URL: the one the service reads): the fixed
 * write paths refuse a product this large, on purpose, and the read bound must hold for rows already there.
 * Tables and columns as of migration 0002, so it runs against old and new schemas; the new triggers count it.
 */
async function seedGiant(ctx: FindingContext): Promise<string> {
  const url = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/pcs_abuse';
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('SET statement_timeout = 0');
    const found = await client.query<{ id: string }>('SELECT id FROM products WHERE sku = $1', [SKU]);
    if (found.rows[0]) return String(found.rows[0].id);
    ctx.log(
      `    inserting ${SHAPE.steps}×${SHAPE.components}×${SHAPE.customisations} into ${url.replace(/\/\/[^@/]*@/, '//')}...`,
    );
    await client.query('BEGIN');
    const { rows } = await client.query<{ id: string }>(
      `INSERT INTO products (name, sku) VALUES ('Giant product (issue 20)', $1) RETURNING id`,
      [SKU],
    );
    const id = String(rows[0]!.id);
    await client.query(
      `INSERT INTO steps (product_id, name, "order") SELECT $1, 'Step ' || s, s FROM generate_series(0, $2 - 1) s`,
      [id, SHAPE.steps],
    );
    await client.query(
      `INSERT INTO components (step_id, name, position) SELECT st.id, 'Component ' || c, c FROM steps st, generate_series(0, $2 - 1) c WHERE st.product_id = $1`,
      [id, SHAPE.components],
    );
    await client.query(
      `INSERT INTO customisations (component_id, name, type, price)
       SELECT co.id, 'Option ' || x, 'colour', (x % 100) + 0.5
       FROM steps st JOIN components co ON co.step_id = st.id, generate_series(0, $2 - 1) x WHERE st.product_id = $1`,
      [id, SHAPE.customisations],
    );
    await client.query('COMMIT');
    return id;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  } finally {
    await client.end();
  }
}

/** 11. Issue 20, finding 2: one product of 300,000 customisations read at full depth, once, again (cache), and under aliases. */
async function run(ctx: FindingContext): Promise<void> {
  const { target } = ctx;
  const id = await seedGiant(ctx);
  const total = SHAPE.steps * SHAPE.components * SHAPE.customisations;
  const ask = (aliases: number) => {
    const fields = Array.from({ length: aliases }, (_, i) => `p${i}: product(id: $id) { ${FULL} }`).join(' ');
    return postGraphQL(
      target.base,
      target.tokens[0],
      { query: `query Giant($id: ID!) { ${fields} }`, variables: { id } },
      { keepBody: false, timeoutMs: 180_000 },
    );
  };
  const codeOf = async (aliases: number) => {
    // The error code of a refusal, from a second small look (bodies of the answers above can be 200 MB).
    const fields = Array.from({ length: aliases }, (_, i) => `p${i}: product(id: $id) { ${FULL} }`).join(' ');
    const x = await postGraphQL(
      target.base,
      target.tokens[0],
      { query: `query Giant($id: ID!) { ${fields} }`, variables: { id } },
      { keepBody: true, timeoutMs: 180_000 },
    );
    if (x.bytes > 100_000) return '';
    const body = JSON.parse(x.body!) as { errors?: { message: string; extensions?: { code?: string } }[] };
    const e = body.errors?.[0];
    return e ? `; ${e.extensions?.code ?? 'no code'}: ${e.message.slice(0, 120)}` : '';
  };
  for (const [aliases, label] of [
    [1, `product(id) full depth of a product with ${total.toLocaleString('en-US')} customisations`],
    [1, 'the same again (the response cache?)'],
    [6, 'the same under 6 aliases'],
    [15, 'the same under 15 aliases'],
  ] as const) {
    await record(ctx, { finding: '11', sent: label }, async () => {
      const x = await ask(aliases);
      const code = x.status && x.bytes < 100_000 ? await codeOf(aliases) : '';
      return {
        ...columns(x),
        notes: `${x.status === 200 && x.bytes > 100_000 ? 'answered in full' : 'no full answer'}${code}`,
      };
    });
  }
}

export const giantProduct: Finding = {
  number: 11,
  title: 'One product of 300,000 customisations (issue 20, finding 2)',
  run,
};
