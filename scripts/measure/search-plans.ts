import { parseArgs } from 'node:util';
import pg from 'pg';
import { skuSearchTerms } from '../bench/queries.ts';

/**
 * npm run measure:search-plans [-- --terms N --statistics S --products P]: what PostgreSQL spends planning and running
 * the bench's Q5 search page (`products(first: 20, search)`, ordered by id) for N of the bench's terms,
 * on DATABASE_URL (a bench database, e.g. pcs_bench_100k). Each term matches ten skus; a search is planned
 * for its value, so the plan, and its cost, depend on how the column statistics price the pattern.
 *
 * --products P: the catalogue size the bench's terms are drawn for (default: the products the database holds).
 * --statistics S sets the statistics target of name and sku to S and analyses first, and puts the
 * previous targets back (and analyses again) afterwards.
 */
const { values: opts } = parseArgs({
  options: { terms: { type: 'string' }, statistics: { type: 'string' }, products: { type: 'string' } },
});
const url = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/pcs_bench_100k';
const client = new pg.Client({ connectionString: url });
await client.connect();

// The find repository's statement for this page (fewer columns, the same filter, order and limit): the search on
// either column, the id order, one more row than the page.
const STATEMENT = `SELECT id, name, sku FROM products WHERE (products.name ILIKE $1 OR products.sku ILIKE $1)
  ORDER BY products.id ASC LIMIT 21`;

interface Plan {
  'Node Type': string;
  'Index Name'?: string;
  Plans?: Plan[];
}
const shapeOf = (p: Plan): string =>
  `${p['Node Type']}${p['Index Name'] ? ` on ${p['Index Name']}` : ''}${p.Plans ? ` > ${p.Plans.map(shapeOf).join(' + ')}` : ''}`;

async function targets(): Promise<Record<string, number>> {
  const { rows } = await client.query<{ attname: string; attstattarget: number }>(
    `SELECT attname, attstattarget FROM pg_attribute WHERE attrelid = 'products'::regclass AND attname IN ('name', 'sku')`,
  );
  return Object.fromEntries(rows.map((r) => [r.attname, r.attstattarget]));
}
async function setTargets(t: Record<string, number>) {
  await client.query(`ALTER TABLE products ALTER COLUMN name SET STATISTICS ${Number(t.name)},
    ALTER COLUMN sku SET STATISTICS ${Number(t.sku)}`);
  await client.query('ANALYZE products');
}

const before = await targets();
const count = Number((await client.query<{ n: string }>('SELECT count(*) AS n FROM products')).rows[0]!.n);
const products = Number(opts.products ?? count);
try {
  if (opts.statistics !== undefined) {
    const s = Number(opts.statistics);
    await setTargets({ name: s, sku: s });
  }
  const terms = skuSearchTerms(products, Number(opts.terms ?? 200));
  const runs: { term: string; planMs: number; execMs: number; shape: string }[] = [];
  for (const term of terms) {
    const { rows } = await client.query<{
      'QUERY PLAN': [{ Plan: Plan; 'Planning Time': number; 'Execution Time': number }];
    }>(`EXPLAIN (ANALYZE, FORMAT JSON) ${STATEMENT}`, [`%${term}%`]);
    const explained = rows[0]!['QUERY PLAN'][0];
    runs.push({
      term,
      planMs: explained['Planning Time'],
      execMs: explained['Execution Time'],
      shape: shapeOf(explained.Plan),
    });
  }
  const stats = (xs: number[]) => {
    const sorted = [...xs].sort((a, b) => a - b);
    const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
    const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
    return `mean ${mean.toFixed(3)}  p50 ${at(0.5).toFixed(3)}  p99 ${at(0.99).toFixed(3)}  max ${at(1).toFixed(3)}`;
  };
  const now = await targets();
  console.log(
    `${count} products, statistics target name ${now.name}, sku ${now.sku} (-1: the default), ${terms.length} terms`,
  );
  console.log(`planning ms   ${stats(runs.map((r) => r.planMs))}`);
  console.log(`execution ms  ${stats(runs.map((r) => r.execMs))}`);
  console.log(`both ms       ${stats(runs.map((r) => r.planMs + r.execMs))}`);
  const shapes = new Map<string, number>();
  for (const r of runs) shapes.set(r.shape, (shapes.get(r.shape) ?? 0) + 1);
  for (const [shape, n] of shapes) console.log(`${String(n).padStart(5)} × ${shape}`);
  const slowest = [...runs].sort((a, b) => b.execMs - a.execMs).slice(0, 3);
  console.log(`slowest: ${slowest.map((r) => `${r.term} ${r.execMs.toFixed(1)} ms`).join(', ')}`);
} finally {
  if (opts.statistics !== undefined) await setTargets(before);
  await client.end();
}
