import os from 'node:os';
import { sql } from 'kysely';
import { parseArgs } from 'node:util';
import { loadConfig } from '../../src/config.ts';
import { largestTree } from '../lib/largest-tree.ts';
import { startMeasuredService } from '../lib/measured-service.ts';
import {
  evaluate,
  MAX_SELECTIONS,
  type ProductTree,
  type Selection,
  type TreeRule,
} from '../../src/modules/catalog/tools.ts';
import type { Database } from '../../src/modules/index.ts';
import { createDatabase, databaseOptions } from '../../src/platform/db.ts';
import { createLogger } from '../../src/platform/logger.ts';
import { migrateToLatest } from '../../src/platform/migrate.ts';
import { createScratchDatabase } from '../lib/scratch-database.ts';

/** The parts of the answers this script reads. */
interface Answer {
  data: {
    createProduct?: { id: string };
    configure?: { valid: boolean };
    saveConfiguration?: { id: string };
    configuration?: { selections: unknown[] };
  };
}

/**
 * npm run measure:configure [-- --runs N --rules R]: the largest selection the service accepts (1,000 choices)
 * on the largest product tree the configured limits accept (CATALOG_MAX_* totals at their limits),
 * with R rules (default: one per customisation of that tree; no setting bounds rules per product yet).
 *
 * 1. The pure engine (`evaluate`), in this process: a valid selection whose every rule is checked and
 *    holds, and a hostile one whose every rule fires (R violations), median and max of N runs.
 * 2. Through HTTP on a scratch PostgreSQL database (response cache off, so every request computes):
 *    `configure` with both selections, `saveConfiguration` of the valid one and `configuration(id)`
 *    reading it back, with the statements each costs and the response size.
 */

const { values } = parseArgs({ options: { runs: { type: 'string', default: '5' }, rules: { type: 'string' } } });
const runs = Number(values.runs);
const adminUrl = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const scratch = await createScratchDatabase(adminUrl, 'pcs_measure_configure', { replace: true });

const config = loadConfig({
  ...process.env,
  DATABASE_URL: scratch.url,
  LOG_LEVEL: 'warn',
  PORT: '0',
  RESPONSE_CACHE_MAX_ENTRIES: '0',
  CONFIGURATION_SAVES_PER_MINUTE: '100000',
});
const { steps, componentsPerStep, customisationsPerComponent, tree: largest } = largestTree(config.catalog.writeLimits);
const customisations = steps * componentsPerStep * customisationsPerComponent;
const ruleCount = Number(values.rules ?? customisations);
// A customer's text: long enough to matter, short enough that 1,000 of them fit the 1 MiB body limit.
const VALUE = 'Für Anna, mit Liebe — '.padEnd(400, 'x');

/** The tree as createProduct takes it: the first option of every component is a text that needs a value. */
function productInput(sku: string) {
  return largest(sku, ({ step, component, option }) => ({
    type: option === 0 ? 'text' : 'colour',
    price: ((step * componentsPerStep + component) % 997) / 10 + option,
  }));
}

/**
 * `options[c][x]`: the x-th customisation id of the c-th component in catalogue order. The valid
 * selection chooses option 0 of every component until there are 1,000 choices. Valid rules: each
 * REQUIRES joins two chosen options (it holds) and each EXCLUDES a chosen and an unchosen one (it
 * holds too), so every rule is read and checked. Hostile rules: EXCLUDES between two chosen options,
 * every one a violation.
 */
function rules(options: string[][], chosen: number, hostile: boolean): Omit<TreeRule, 'id'>[] {
  const out: Omit<TreeRule, 'id'>[] = [];
  const seen = new Set<string>();
  for (let i = 0; out.length < ruleCount && i < ruleCount * 4; i++) {
    const a = i % chosen;
    const b = (a + 1 + Math.floor(i / chosen)) % chosen;
    if (a === b) continue;
    const kind = hostile || i % 2 === 1 ? 'EXCLUDES' : 'REQUIRES';
    const customisationId = options[a]![0]!;
    const otherCustomisationId =
      hostile || kind === 'REQUIRES' ? options[b]![0]! : options[b]![1 + (i % (customisationsPerComponent - 1))]!;
    const key =
      kind === 'EXCLUDES'
        ? [kind, ...[customisationId, otherCustomisationId].sort()].join()
        : [kind, customisationId, otherCustomisationId].join();
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ kind, customisationId, otherCustomisationId, message: null });
  }
  return out;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const show = (xs: number[]) =>
  `median ${median(xs).toFixed(1).padStart(7)} ms, max ${Math.max(...xs)
    .toFixed(1)
    .padStart(7)} ms`;

const database = await createDatabase<Database>(
  databaseOptions(config.database, createLogger('warn', process.stderr), { poolSize: 4 }),
);
let exitCode = 0;
try {
  await migrateToLatest(database.db);
  let statements = 0;
  database.observeQueries(() => statements++);
  const { app, base, token } = await startMeasuredService(config, database, 'measure-configure-password');

  async function graphql(
    query: string,
    variables: unknown,
  ): Promise<{ ms: number; statements: number; bytes: number; body: Answer }> {
    await new Promise((resolve) => setTimeout(resolve, 20));
    const before = statements;
    const start = performance.now();
    const res = await fetch(`${base}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ query, variables }),
    });
    const text = await res.text();
    const ms = performance.now() - start;
    const body = JSON.parse(text) as Answer & { errors?: unknown };
    if (res.status !== 200 || body.errors)
      throw new Error(`${res.status} ${JSON.stringify(body.errors).slice(0, 500)}`);
    return { ms, statements: statements - before, bytes: Buffer.byteLength(text), body };
  }

  const created = await graphql('mutation ($input: CreateProductInput!) { createProduct(input: $input) { id } }', {
    input: productInput('largest'),
  });
  const productId: string = created.body.data.createProduct!.id;
  // Catalogue order: step order, component position then id, customisation id.
  const { rows } = await database.db
    .selectFrom('customisations as x')
    .innerJoin('components as c', 'c.id', 'x.component_id')
    .innerJoin('steps as s', 's.id', 'c.step_id')
    .where('s.product_id', '=', productId)
    .select(['x.id', 'x.component_id', 'x.name', 'x.type', sql<number>`(x.price * 100)::float8`.as('priceCents')])
    .orderBy('s.order')
    .orderBy('c.position')
    .orderBy('c.id')
    .orderBy('x.id')
    .execute()
    .then((rows) => ({ rows }));
  const options: string[][] = [];
  const components: (typeof rows)[] = [];
  for (const row of rows) {
    if (row.component_id !== components.at(-1)?.[0]?.component_id) components.push([]);
    components.at(-1)!.push(row);
  }
  for (const component of components) options.push(component.map((r) => r.id));
  const chosen = Math.min(MAX_SELECTIONS, options.length);
  const selections: Selection[] = options.slice(0, chosen).map((o) => ({ customisationId: o[0]!, value: VALUE }));
  // Sent in reverse: the engine must sort them back into catalogue order.
  const sent = [...selections].reverse();
  const validRules = rules(options, chosen, false);
  const hostileRules = rules(options, chosen, true);

  // 1. The engine alone, on the same tree.
  const tree = (ruleSet: Omit<TreeRule, 'id'>[]): ProductTree => ({
    basePriceCents: 0,
    currency: 'EUR',
    steps: Array.from({ length: steps }, (_, s) => ({
      id: `s${s}`,
      name: `Step ${s}`,
      order: s,
      required: true,
      components: components.slice(s * componentsPerStep, (s + 1) * componentsPerStep).map((component, c) => ({
        id: component[0]!.component_id,
        name: `Component ${s}.${c}`,
        position: c,
        minSelections: 0,
        maxSelections: 1,
        customisations: component.map((r) => ({
          id: r.id,
          name: r.name,
          type: r.type,
          priceCents: r.priceCents,
          priceMode: 'ADD' as const,
        })),
      })),
    })),
    rules: ruleSet.map((r, i) => ({ ...r, id: String(i + 1) })),
  });
  const engine = { valid: [] as number[], hostile: [] as number[] };
  const validTree = tree(validRules);
  const hostileTree = tree(hostileRules);
  let hostileViolations = 0;
  for (let run = 0; run < runs; run++) {
    let start = performance.now();
    const ok = evaluate(validTree, sent);
    engine.valid.push(performance.now() - start);
    if (ok.violations.length > 0)
      throw new Error(`the valid selection has violations: ${JSON.stringify(ok.violations.slice(0, 3))}`);
    start = performance.now();
    hostileViolations = evaluate(hostileTree, sent).violations.length;
    engine.hostile.push(performance.now() - start);
  }

  // 2. Through HTTP.
  const setRules = async (ruleSet: Omit<TreeRule, 'id'>[]) => {
    await database.db.deleteFrom('configuration_rules').where('product_id', '=', productId).execute();
    for (let i = 0; i < ruleSet.length; i += 1000) {
      await database.db
        .insertInto('configuration_rules')
        .values(
          ruleSet.slice(i, i + 1000).map((r) => ({
            product_id: productId,
            kind: r.kind,
            customisation_id: r.customisationId,
            other_customisation_id: r.otherCustomisationId,
            message: r.message,
          })),
        )
        .execute();
    }
  };
  const CONFIGURE = `query ($p: ID!, $s: [SelectionInput!]!) { configure(productId: $p, selections: $s) {
    valid violations { code message customisationId otherCustomisationId } price { base { amount } lines { customisationId name mode amount { amount } } total { amount currency } } } }`;
  const SAVE =
    'mutation ($p: ID!, $s: [SelectionInput!]!) { saveConfiguration(productId: $p, selections: $s) { id price { total { amount } } } }';
  const READ = `query ($id: ID!) { configuration(id: $id) { id valid changedSince selections { customisationId name value price { amount } mode }
    price { total { amount } } currentPrice { total { amount } } } }`;
  const http = { valid: [] as number[], hostile: [] as number[], save: [] as number[], read: [] as number[] };
  const cost = { valid: 0, hostile: 0, save: 0, read: 0, validBytes: 0, hostileBytes: 0, readBytes: 0 };
  await setRules(validRules);
  for (let run = 0; run < runs; run++) {
    const r = await graphql(CONFIGURE, { p: productId, s: sent });
    if (!r.body.data.configure!.valid) throw new Error('configure: the valid selection is refused');
    http.valid.push(r.ms);
    Object.assign(cost, { valid: r.statements, validBytes: r.bytes });
    const saved = await graphql(SAVE, { p: productId, s: sent });
    http.save.push(saved.ms);
    cost.save = saved.statements;
    const read = await graphql(READ, { id: saved.body.data.saveConfiguration!.id });
    if (read.body.data.configuration!.selections.length !== chosen)
      throw new Error('configuration: not every selection came back');
    http.read.push(read.ms);
    Object.assign(cost, { read: read.statements, readBytes: read.bytes });
  }
  await setRules(hostileRules);
  for (let run = 0; run < runs; run++) {
    const r = await graphql(CONFIGURE, { p: productId, s: sent });
    http.hostile.push(r.ms);
    Object.assign(cost, { hostile: r.statements, hostileBytes: r.bytes });
  }
  await app.close();

  const requestBytes = JSON.stringify({ query: CONFIGURE, variables: { p: productId, s: sent } }).length;
  const kb = (n: number) => `${(n / 1024).toFixed(0)} KB`;
  console.log(
    `largest tree: ${steps} steps x ${componentsPerStep} components x ${customisationsPerComponent} customisations (${customisations} customisations); ` +
      `${chosen} selections of ${VALUE.length}-character values (${kb(requestBytes)} request); ` +
      `${validRules.length} rules (valid case), ${hostileRules.length} (hostile case); ${os.cpus().length} CPUs, Node ${process.version}, ${runs} runs`,
  );
  console.log(`engine, valid, every rule holds:         ${show(engine.valid)}`);
  console.log(`engine, hostile, every rule fires:       ${show(engine.hostile)} (${hostileViolations} violations)`);
  console.log(
    `configure over HTTP, valid:              ${show(http.valid)}, ${cost.valid} statements, ${kb(cost.validBytes)} answer`,
  );
  console.log(
    `configure over HTTP, hostile:            ${show(http.hostile)}, ${cost.hostile} statements, ${kb(cost.hostileBytes)} answer`,
  );
  console.log(`saveConfiguration over HTTP:             ${show(http.save)}, ${cost.save} statements`);
  console.log(
    `configuration(id) read back over HTTP:   ${show(http.read)}, ${cost.read} statements, ${kb(cost.readBytes)} answer`,
  );
  console.log(
    `execution timeout: ${config.graphql.executionTimeoutMs} ms; load average ${os.loadavg()[0]!.toFixed(1)}`,
  );
  const slowest = Math.max(...Object.values(http).flat());
  if (slowest > config.graphql.executionTimeoutMs / 2) {
    console.log('a request took over half the execution timeout: too close');
    exitCode = 1;
  }
} finally {
  await database.close();
  await scratch.drop();
}
process.exitCode = exitCode;
