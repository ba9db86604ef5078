import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { encodeCursor, productCursorAfter } from '../../src/modules/catalog/tools.ts';
import { createRng } from '../../db/seeds/catalog.ts';
import { ensureDatabase, prepareDataset, revokeToken } from '../lib/dataset.ts';
import { stopServer, type Server } from '../lib/service-process.ts';
import { emptyTotals, runCase, type CaseContext, type CaseTotals } from './case-runner.ts';
import { PgMonitor } from './pg-monitor.ts';
import pg from 'pg';
import {
  COLD_QUERIES,
  FIND_QUERIES,
  HOT_QUERIES,
  QUERY_LABELS,
  REFERENCE_QUERIES,
  requestBodies,
  skuSearchTerms,
  type FindInputs,
  type QueryName,
  type Selections,
} from './queries.ts';
import { printReport } from './report.ts';
import { PEER_NAME, PEER_QUERIES, peerCursors, toPeerBody, verifyPeer } from './peer.ts';
import { decodeAfter } from './reference-server.ts';
import { startPostGraphile, startReference, startService } from './servers.ts';
import { parseSettings } from './settings.ts';
import { runReplicaBench } from './replica.ts';
import { runTenantBench } from './tenants.ts';
import { manifestOf, pushBenchDocuments, toTrustedBody } from './trusted.ts';
import { verify } from './verify.ts';
import { ensureWrk } from './wrk.ts';

/**
 * npm run bench [-- --quick] : the service against the reference server, same load,
 * same run, alternating. npm run bench -- --tenants N: what tenancy costs (tenants.ts); -- --replica: what a
 * read replica takes off the primary and costs the service (replica.ts). -- --trusted: the service's requests
 * by documentId, their documents pushed to its default tenant first (trusted.ts). See BENCHMARKS.md for the method.
 */

const { settings, quick, profile, json } = parseSettings();
const log = (line: string) => process.stderr.write(`${line}\n`);
/** The product id a cursor of the service's points after, or null. */
const serviceCursorId = (cursor: string) => {
  try {
    return decodeAfter(cursor);
  } catch {
    return null;
  }
};

async function main(): Promise<number> {
  if (settings.tenants !== null) return runTenantBench(settings, log);
  if (settings.replica) return runReplicaBench(settings, quick, log);
  const wrk = ensureWrk(log);
  const dbName = new URL(settings.url).pathname.slice(1);
  if (await ensureDatabase(settings.url)) log(`created database ${dbName}`);
  const dataset = await prepareDataset(settings.url, settings.products, log);
  const { token, tokenId } = dataset.tokens[0]!;
  if (dataset.seededNow > 0) log(`seeded ${dataset.seededNow} products in ${(dataset.seedMs / 1000).toFixed(1)} s`);

  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'pcs-bench-'));
  const servers: Server[] = [];
  const monitor = new PgMonitor(settings.url, dbName);
  await monitor.connect();
  const results = new Map<string, CaseTotals>();
  let queries: QueryName[] = [];
  try {
    for (const mode of settings.modes) servers.push(await startService(settings, profile, mode));
    servers.push(await startReference(settings));
    const reference = servers.at(-1)!;
    // The peer runs Q0..Q3 only: a queued run of other queries does not install or start it.
    const peerQueries = settings.queries.filter((q) => PEER_QUERIES[q] !== undefined);
    if (settings.peer && peerQueries.length > 0) servers.push(await startPostGraphile(settings, log));
    const peer = servers.find((s) => s.name === PEER_NAME);
    const served: Record<string, readonly QueryName[]> = {
      reference: REFERENCE_QUERIES,
      hot: HOT_QUERIES,
      cold: COLD_QUERIES,
      // What the cold service runs, with the token cache on.
      miss: COLD_QUERIES,
      [PEER_NAME]: peerQueries,
    };
    const runsOn = (q: QueryName) => servers.filter((s) => served[s.name]!.includes(q));
    // A query the reference serves needs another server beside it; configure runs on the service alone.
    queries = settings.queries.filter((q) => runsOn(q).length > (REFERENCE_QUERIES.includes(q) ? 1 : 0));
    const cursors = peer && queries.some((q) => PEER_QUERIES[q]) ? await peerCursors(peer) : null;
    const selections = queries.some((q) => q === 'Q4' || q === 'Q4z') ? await loadSelections(settings.url) : new Map();
    const find: FindInputs = queries.some((q) => FIND_QUERIES.includes(q))
      ? {
          searches: skuSearchTerms(settings.products, settings.distinct),
          nameCursors: await loadNameCursors(settings.url, settings.distinct),
        }
      : { searches: [], nameCursors: [] };

    const bodiesOf = new Map(
      queries.map((q) => [
        q,
        requestBodies(q, dataset.productIds, settings.distinct, (id) => encodeCursor('product', id), selections, find),
      ]),
    );
    // --trusted: the service is sent its documents by id, registered first; the reference and the peer know none.
    const isService = (s: Server) => (settings.modes as readonly string[]).includes(s.name);
    const trusted = (s: Server) => settings.trusted && isService(s);
    if (settings.trusted) {
      const sent = queries.filter((q) => runsOn(q).some(isService)).flatMap((q) => bodiesOf.get(q)!);
      await pushBenchDocuments(settings.url, manifestOf(sent), log);
    }

    // Every distinct request must get the same bytes from every service and the reference before any load
    // (the peer: the same data).
    let mismatch = false;
    const files = new Map<string, string>();
    for (const q of queries) {
      const bodies = bodiesOf.get(q)!;
      // Zipf draws repeat: the distinct ones are checked, up to the usual count (which also warms the hot cache).
      const distinct = [...new Set(bodies)].slice(0, settings.distinct);
      const problems = await verify(
        q,
        distinct,
        token,
        runsOn(q).filter((s) => s !== peer),
        (s, body) => (trusted(s) ? toTrustedBody(body) : body),
      );
      // The peer's bodies: the same ids and page starts in PostGraphile's terms, its answers checked
      // against the reference's in data (their shapes differ).
      let peerBodies: string[] | null = null;
      if (peer && cursors && runsOn(q).includes(peer)) {
        const toPeer = (b: string) => toPeerBody(q, b, serviceCursorId, cursors);
        peerBodies = bodies.map(toPeer);
        const pairs = distinct.map((b): [string, string] => [b, toPeer(b)]);
        if (problems.length === 0)
          problems.push(...(await verifyPeer(q, pairs, token, reference, peer, serviceCursorId, cursors)));
      }
      if (problems.length > 0) {
        mismatch = true;
        log(
          `MISMATCH ${q}: ${runsOn(q).length > 1 ? 'the service and the reference disagree' : 'bad answers'}:\n${problems.join('\n')}`,
        );
        continue;
      }
      const compared = runsOn(q).filter((s) => s !== peer);
      const checked =
        (compared.length > 1
          ? `${compared.map((s) => s.name).join(' == ')} byte for byte`
          : `${compared[0]!.name}: clean, valid answers`) +
        (peerBodies ? `, ${PEER_NAME} == reference in data (ids, names, skus, types, prices, order)` : '') +
        (compared.some(trusted) ? ', the service by documentId' : '');
      log(`${q}: ${bodies.length} requests (${distinct.length} distinct checked), ${checked}`);
      const file = path.join(tmp, `${q}.jsonl`);
      fs.writeFileSync(file, `${bodies.join('\n')}\n`);
      files.set(q, file);
      if (compared.some(trusted)) {
        const trustedFile = path.join(tmp, `${q}.trusted.jsonl`);
        fs.writeFileSync(trustedFile, `${bodies.map(toTrustedBody).join('\n')}\n`);
        for (const s of compared.filter(trusted)) files.set(`${q}/${s.name}`, trustedFile);
      }
      if (peerBodies) {
        const peerFile = path.join(tmp, `${q}.${PEER_NAME}.jsonl`);
        fs.writeFileSync(peerFile, `${peerBodies.join('\n')}\n`);
        files.set(`${q}/${PEER_NAME}`, peerFile);
      }
    }
    if (mismatch) return 1;

    const { threads, connections } = settings;
    log(
      `load: wrk -t${threads} -c${connections}, warm-up ${settings.warmup} s + ${settings.duration} s per case, ${settings.rounds} round(s), alternating`,
    );
    const ctx: CaseContext = {
      monitor,
      serverPids: servers.map((s) => s.child.pid!),
      warmup: settings.warmup,
      duration: settings.duration,
      log,
    };
    for (let round = 0; round < settings.rounds; round++) {
      for (const q of queries) {
        log(`round ${round + 1} ${q}: ${QUERY_LABELS[q]}`);
        // Alternate which server goes first so neither always inherits a warmer cache.
        const order = round % 2 === 0 ? runsOn(q) : [...runsOn(q)].reverse();
        for (const server of order) {
          const key = `${q}/${server.name}`;
          // The peer gets the same requests in its own query language; the same Authorization header, unused.
          // With --trusted the service gets them by documentId.
          const load = { wrk, threads, connections, bodiesFile: files.get(files.has(key) ? key : q)!, token };
          if (!results.has(key)) results.set(key, emptyTotals());
          await runCase(ctx, load, server, results.get(key)!);
        }
      }
    }
  } finally {
    await monitor.end();
    for (const s of servers) await stopServer(s);
    await revokeToken(settings.url, tokenId);
    fs.rmSync(tmp, { recursive: true, force: true });
  }

  if (printReport({ ...settings, queries }, results, { quick, json })) return 0;
  log('FAILED: errors, non-2xx or bad responses during the load (see errors/bad)');
  return 1;
}

/**
 * Ten choices per product for configure: the first customisation of each of its first ten components
 * in catalogue order, with a value for the types that need one. The bench's products have no rules,
 * bounds or required steps, so the selection is valid and priced line by line.
 */
async function loadSelections(url: string): Promise<Selections> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ product_id: string; id: string; type: string }>(`
      SELECT product_id, id, type FROM (
        SELECT s.product_id::text AS product_id, f.id::text AS id, f.type,
          row_number() OVER (PARTITION BY s.product_id ORDER BY s."order", c.position, c.id) AS rn
        FROM (SELECT DISTINCT ON (component_id) component_id, id, type FROM customisations ORDER BY component_id, id) f
        JOIN components c ON c.id = f.component_id JOIN steps s ON s.id = c.step_id
      ) q WHERE rn <= 10 ORDER BY product_id::bigint, rn`);
    const out = new Map<string, { customisationId: string; value?: string }[]>();
    for (const r of rows) {
      const list = out.get(r.product_id) ?? [];
      list.push(
        ['text', 'typography', 'image'].includes(r.type)
          ? { customisationId: r.id, value: 'Bench' }
          : { customisationId: r.id },
      );
      out.set(r.product_id, list);
    }
    return out;
  } finally {
    await client.end();
  }
}

/**
 * Q6's cursors: the service's own, after products drawn past the first quarter of the walk by name
 * (and 20 before its end, so every page is full), from every product of the database.
 */
async function loadNameCursors(url: string, count: number): Promise<string[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{
      id: string;
      name: string;
      sku: string;
      basePrice: number;
      createdAt: number;
      updatedAt: number;
    }>(`
      SELECT id::text AS id, name, sku, base_price::float8 AS "basePrice",
        (extract(epoch FROM created_at) * 1000)::float8 AS "createdAt",
        (extract(epoch FROM updated_at) * 1000)::float8 AS "updatedAt"
      FROM products ORDER BY lower(name COLLATE "C"), (name COLLATE "C"), products.id`);
    const from = Math.floor(rows.length / 4);
    const span = rows.length - 20 - from;
    if (span < 1) throw new Error('Q6 needs at least 28 products');
    const rng = createRng(6);
    const orderBy = [{ column: 'NAME', order: 'ASC' }] as const;
    return Array.from({ length: count }, () => productCursorAfter({ orderBy }, rows[from + Math.floor(rng() * span)]!));
  } finally {
    await client.end();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    log(err instanceof Error ? (err.stack ?? err.message) : String(err));
    process.exit(1);
  },
);
