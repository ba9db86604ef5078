import http from 'node:http';
import { createRng } from '../../db/seeds/catalog.ts';

/**
 * The load test's catalogue editor: one session changing customisation prices at a fixed rate
 * beside the readers, the way a person in the back office does. Each write is
 * updateCustomisation(price, expectedUpdatedAt) with the product's `updatedAt` as the editor last
 * saw it (its previous answer for that product, else its first read): every write moves the
 * product's `updatedAt` and a customisation's answer carries the same stamp (one timestamp per
 * write), so one editor never conflicts with itself, and a CONFLICT means a write was lost or
 * another writer ran. The editor waits for its previous save of a product before saving that
 * product again, as a person does. A price goes up by one cent and back on the next write to it,
 * and `restore()` puts back every price still changed, so the catalogue ends as it began.
 */

/** A failed GraphQL request: HTTP status and the errors' `extensions.code`s. */
export class RequestFailed extends Error {
  constructor(
    message: string,
    readonly codes: readonly string[],
  ) {
    super(message);
  }
}

export type Client = <Data>(token: string, query: string, variables: Record<string, unknown>) => Promise<Data>;

/** POSTs JSON over node:http, which (unlike fetch) sends the Host header it is given. */
function postJson(endpoint: string, headers: Record<string, string>, body: string, agent: http.Agent) {
  return new Promise<{ status: number; text: string }>((resolve, reject) => {
    const req = http.request(endpoint, { method: 'POST', headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** A GraphQL client of the load test; `host`: the customer company's host, sent as Host. */
export function createClient(endpoint: string, host?: string): Client {
  const agent = new http.Agent({ keepAlive: true });
  return async <Data>(token: string, query: string, variables: Record<string, unknown>): Promise<Data> => {
    const res = await postJson(
      endpoint,
      {
        'content-type': 'application/json',
        accept: 'application/json',
        authorization: `Bearer ${token}`,
        ...(host ? { host } : {}),
      },
      JSON.stringify({ query, variables }),
      agent,
    );
    const { text } = res;
    let body: { data?: Data; errors?: { message: string; extensions?: { code?: string } }[] } | undefined;
    try {
      body = JSON.parse(text) as typeof body;
    } catch {
      // not JSON: reported below with the status
    }
    if (res.status !== 200 || !body || body.errors || body.data == null) {
      const codes = (body?.errors ?? []).map((e) => e.extensions?.code ?? '');
      throw new RequestFailed(`${res.status} ${JSON.stringify(body?.errors ?? body ?? text).slice(0, 300)}`, codes);
    }
    return body.data;
  };
}

const OPEN = `query EditorOpens($id: ID!) {
  product(id: $id) { id updatedAt steps { components { customisations { id price } } } }
}`;
const SAVE = `mutation EditorSaves($id: ID!, $input: UpdateCustomisationInput!) {
  updateCustomisation(id: $id, input: $input) { id price updatedAt }
}`;
const MAX_CENTS = 999_999_999_999;

interface OpenedProduct {
  product: {
    id: string;
    updatedAt: string;
    steps: { components: { customisations: { id: string; price: number }[] }[] }[];
  } | null;
}

interface Item {
  id: string;
  originalCents: number;
  cents: number;
}

interface EditedProduct {
  id: string;
  /** The product's version as the editor last saw it: what its next write expects. */
  updatedAt: string;
  items: Item[];
  /** The editor's save in progress for this product, if any. */
  busy: Promise<void>;
}

/** What one phase of editing did. Latency runs from sending a write to its answer. */
export interface EditorPhase {
  scheduled: number;
  done: number;
  conflicts: number;
  errors: number;
  latencies: number[];
  firstError?: string;
}

export interface EditorRun {
  readonly phase: EditorPhase;
  /** Stops scheduling and waits for the writes in flight. */
  stop(): Promise<EditorPhase>;
}

export class Editor {
  private next = 0;
  private readonly rng = createRng(7);

  private constructor(
    private readonly client: Client,
    private readonly token: string,
    private readonly products: Map<string, EditedProduct>,
    private readonly sequence: string[],
  ) {}

  /**
   * Opens the products the editor will work on: `draws` are product ids in the order it edits
   * them (drawn like the readers' ids), each read once now. Products without customisations drop out.
   */
  static async open(client: Client, token: string, draws: readonly string[]): Promise<Editor> {
    const products = new Map<string, EditedProduct>();
    const distinct = [...new Set(draws)];
    for (let i = 0; i < distinct.length; i += 8) {
      await Promise.all(
        distinct.slice(i, i + 8).map(async (id) => {
          const product = await read(client, token, id);
          if (product.items.length > 0) products.set(id, product);
        }),
      );
    }
    const sequence = draws.filter((id) => products.has(id));
    if (sequence.length === 0) throw new Error('the sampled products have no customisations: nothing to edit');
    return new Editor(client, token, products, sequence);
  }

  get productCount(): number {
    return this.products.size;
  }

  /** Sends `perSecond` writes a second on a timer (open loop: a slow answer delays no other write). */
  start(perSecond: number): EditorRun {
    const phase: EditorPhase = { scheduled: 0, done: 0, conflicts: 0, errors: 0, latencies: [] };
    const interval = 1000 / perSecond;
    const started = performance.now();
    const inFlight = new Set<Promise<void>>();
    let stopped = false;
    let timer: NodeJS.Timeout | undefined;
    const tick = () => {
      if (stopped) return;
      phase.scheduled++;
      const write = this.write(phase);
      inFlight.add(write);
      void write.finally(() => inFlight.delete(write));
      // The schedule is absolute (write k at k + 0.5 intervals), so a late timer does not slow the rate.
      timer = setTimeout(tick, Math.max(0, started + (phase.scheduled + 0.5) * interval - performance.now()));
    };
    timer = setTimeout(tick, interval / 2);
    return {
      phase,
      stop: async () => {
        stopped = true;
        clearTimeout(timer);
        await Promise.all(inFlight);
        return phase;
      },
    };
  }

  private async write(phase: EditorPhase): Promise<void> {
    const product = this.products.get(this.sequence[this.next++ % this.sequence.length]!)!;
    const previous = product.busy;
    let release!: () => void;
    product.busy = new Promise((resolve) => (release = resolve));
    await previous;
    try {
      const item = product.items[Math.floor(this.rng() * product.items.length)]!;
      const cents =
        item.cents !== item.originalCents
          ? item.originalCents
          : item.originalCents < MAX_CENTS
            ? item.originalCents + 1
            : item.originalCents - 1;
      const sent = performance.now();
      try {
        await this.save(product, item, cents);
        phase.latencies.push(performance.now() - sent);
        phase.done++;
      } catch (err) {
        if (err instanceof RequestFailed && err.codes.includes('CONFLICT')) {
          phase.conflicts++;
          // As a person would: read the product again before the next change to it.
          await this.reload(product).catch(() => {});
        } else phase.errors++;
        phase.firstError ??= err instanceof Error ? err.message : String(err);
      }
    } finally {
      release();
    }
  }

  private async save(product: EditedProduct, item: Item, cents: number): Promise<void> {
    const data = await this.client<{ updateCustomisation: { price: number; updatedAt: string } }>(this.token, SAVE, {
      id: item.id,
      input: { price: cents / 100, expectedUpdatedAt: product.updatedAt },
    });
    item.cents = Math.round(data.updateCustomisation.price * 100);
    product.updatedAt = data.updateCustomisation.updatedAt;
  }

  private async reload(product: EditedProduct): Promise<void> {
    const fresh = await read(this.client, this.token, product.id);
    product.updatedAt = fresh.updatedAt;
    const now = new Map(fresh.items.map((i) => [i.id, i.cents]));
    for (const item of product.items) item.cents = now.get(item.id) ?? item.cents;
  }

  /** Puts back every price the editor left changed; returns how many it put back and how many failed. */
  async restore(): Promise<{ restored: number; failed: number; firstError?: string }> {
    let restored = 0;
    let failed = 0;
    let firstError: string | undefined;
    for (const product of this.products.values()) {
      await product.busy;
      for (const item of product.items) {
        // After a CONFLICT (another writer), read the product again and retry with its new version.
        for (let attempt = 1; item.cents !== item.originalCents; attempt++) {
          try {
            await this.save(product, item, item.originalCents);
            restored++;
          } catch (err) {
            const conflict = err instanceof RequestFailed && err.codes.includes('CONFLICT');
            if (
              conflict &&
              attempt < 3 &&
              (await this.reload(product).then(
                () => true,
                () => false,
              ))
            )
              continue;
            failed++;
            firstError ??= err instanceof Error ? err.message : String(err);
            break;
          }
        }
      }
    }
    return { restored, failed, ...(firstError ? { firstError } : {}) };
  }
}

async function read(client: Client, token: string, id: string): Promise<EditedProduct> {
  const { product } = await client<OpenedProduct>(token, OPEN, { id });
  if (!product) throw new Error(`product ${id} is gone`);
  const items = product.steps.flatMap((s) =>
    s.components.flatMap((c) =>
      c.customisations.map((x) => {
        const cents = Math.round(x.price * 100);
        return { id: x.id, originalCents: cents, cents };
      }),
    ),
  );
  return { id: product.id, updatedAt: product.updatedAt, items, busy: Promise.resolve() };
}
