import autocannon, { type Instance } from 'autocannon';
import { createRng } from '../../db/seeds/catalog.ts';
import { PRODUCT } from '../bench/queries.ts';
import type { Editor, EditorPhase } from './editor.ts';

/**
 * `npm run loadtest -- --tenants`: the noisy neighbour. One customer company's clients as hard as they
 * can go, beside another company's steady readers: every request a miss the response cache cannot share
 * (pages of a random size from a random cursor, and searches of random letters), on more connections
 * than its share, spread so that each cap is reached: a third of the connections on one token, a third
 * on the same user's two other tokens, a third over the other users' tokens (give the first user's three
 * tokens first). Its catalogue editor
 * writes beside it. What it counts: answers by status, and the 429s by their message.
 */

const PAGE = `query StormPage($first: Int!, $after: String) { products(first: $first, after: $after) { data { ${PRODUCT} } } }`;
const SEARCH = 'query StormSearch($search: String!) { products(first: 20, search: $search) { data { id name sku } } }';
const LETTERS = 'abcdefghijklmnopqrstuvwxyz';

export interface StormTotals {
  requests: number;
  byStatus: Map<number, number>;
  refusals: Map<string, number>;
  editor?: EditorPhase;
}

export interface StormOptions {
  endpoint: string;
  host: string;
  /** The storm's tokens, of several users of one company: see the spread above. */
  tokens: readonly string[];
  connections: number;
  /** Cursors of the storm company's catalogue, for pages anywhere in it. */
  cursors: readonly (string | null)[];
  editor?: Editor | undefined;
  writesPerSecond: number;
}

/** Connections per token: the spread that reaches the per-token, per-user and per-company caps. */
function spread(tokens: readonly string[], connections: number): number[] {
  if (tokens.length < 3) return tokens.map(() => Math.max(1, Math.round(connections / tokens.length)));
  const rest = tokens.length - 3;
  const third = Math.max(1, Math.round(connections / 3));
  return tokens.map((_, i) =>
    i === 0 ? third : i < 3 ? Math.max(1, Math.round(third / 2)) : Math.max(1, Math.round(third / rest)),
  );
}

function stormBody(random: () => number, cursors: readonly (string | null)[]): string {
  if (random() < 0.5) {
    const after = cursors[Math.floor(random() * cursors.length)] ?? null;
    return JSON.stringify({ query: PAGE, variables: { first: 1 + Math.floor(random() * 20), after } });
  }
  const search = Array.from({ length: 3 }, () => LETTERS[Math.floor(random() * LETTERS.length)]).join('');
  return JSON.stringify({ query: SEARCH, variables: { search } });
}

/** Starts the storm; stop() ends it (and its editor) and returns what it got. */
export function startStorm(o: StormOptions): { stop(): Promise<StormTotals> } {
  const totals: StormTotals = { requests: 0, byStatus: new Map(), refusals: new Map() };
  const random = createRng(2026);
  const onResponse = (status: number, body: string) => {
    totals.requests++;
    totals.byStatus.set(status, (totals.byStatus.get(status) ?? 0) + 1);
    if (status !== 429) return;
    const message = refusalMessage(body);
    totals.refusals.set(message, (totals.refusals.get(message) ?? 0) + 1);
  };
  // One instance a token: autocannon's headers are per instance, and its request context per request.
  const instances: Instance[] = spread(o.tokens, o.connections).map((connections, i) =>
    autocannon(
      {
        url: o.endpoint,
        connections,
        // Until stopped: the phase's readers set the length.
        duration: 3600,
        timeout: 30,
        method: 'POST',
        headers: {
          host: o.host,
          'content-type': 'application/json',
          accept: 'application/json',
          authorization: `Bearer ${o.tokens[i]!}`,
        },
        requests: [{ setupRequest: (req) => ({ ...req, body: stormBody(random, o.cursors) }), onResponse }],
      },
      () => {},
    ),
  );
  const editing = o.editor && o.writesPerSecond > 0 ? o.editor.start(o.writesPerSecond) : undefined;
  const done = instances.map((instance) => new Promise<void>((resolve) => instance.once('done', () => resolve())));
  return {
    async stop() {
      for (const instance of instances) instance.stop();
      await Promise.all(done);
      const editor = await editing?.stop();
      editor?.latencies.sort((a, b) => a - b);
      return { ...totals, ...(editor ? { editor } : {}) };
    },
  };
}

function refusalMessage(body: string): string {
  try {
    const parsed = JSON.parse(body) as { errors?: { message?: string }[]; message?: string };
    return parsed.errors?.[0]?.message ?? parsed.message ?? '(no message)';
  } catch {
    return '(not JSON)';
  }
}
