import type { Op, SoakStats } from './report.ts';

const PAGE_QUERY = `query SoakPage($first: Int!, $after: String) {
  products(first: $first, after: $after) {
    data { id name sku }
    paginatorInfo { currentPage lastPage total hasMorePages endCursor }
  }
}`;
const PRODUCT_QUERY = `query SoakProduct($id: ID!) {
  product(id: $id) {
    id name sku
    steps { id name order components { id name customisations { id name type price } } }
  }
}`;

type Outcome<T> = { ok: boolean; what: string; value?: T };

async function timed<T>(stats: SoakStats, op: Op, fn: () => Promise<Outcome<T>>): Promise<T | undefined> {
  const start = performance.now();
  let outcome: Outcome<T>;
  try {
    outcome = await fn();
  } catch (err) {
    // fetch() says only "fetch failed"; its cause names the refused or reset connection.
    outcome = {
      ok: false,
      what: (err as Error).cause ? String(((err as Error).cause as Error).message) : (err as Error).message,
    };
  }
  stats.record(op, performance.now() - start, outcome.ok ? undefined : outcome.what);
  return outcome.value;
}

interface ProductPage {
  products?: { data: { id: string }[]; paginatorInfo: { hasMorePages: boolean; endCursor: string | null } };
}

async function graphql<Data>(base: string, token: string, query: string, variables: Record<string, unknown>) {
  const res = await fetch(`${base}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await res.json()) as { data?: Data; errors?: { message: string }[] };
  const ok = res.status === 200 && !body.errors;
  return { ok, what: ok ? '' : `${res.status} ${body.errors?.[0]?.message ?? ''}`, value: body.data };
}

async function login(stats: SoakStats, base: string, email: string, password: string): Promise<string | undefined> {
  return timed(stats, 'login', async () => {
    const res = await fetch(`${base}/api/v1/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password }),
    });
    const body = (await res.json()) as { data?: { token: string } };
    return { ok: res.status === 200, what: String(res.status), value: body.data?.token };
  });
}

export interface ClientSpec {
  base: string;
  email: string;
  password: string;
  until: number;
  /** Seeds the client's own generator: the same mix on every run. */
  seed: number;
}

/**
 * One user until `until`: about 55 % product pages (following the cursor), 38 %
 * deep products among the ids seen so far, 7 % logout then login again.
 */
export async function runClient({ base, email, password, until, seed }: ClientSpec, stats: SoakStats): Promise<void> {
  let rnd = seed;
  const random = () => (rnd = (rnd * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  let token = await login(stats, base, email, password);
  const ids: string[] = [];
  let cursor: string | null = null;
  while (Date.now() < until) {
    if (!token) {
      await new Promise((r) => setTimeout(r, 200));
      token = await login(stats, base, email, password);
      continue;
    }
    const roll = random();
    if (roll < 0.55 || ids.length === 0) {
      const data = await timed(stats, 'page', () =>
        graphql<ProductPage>(base, token!, PAGE_QUERY, { first: 10 + Math.floor(random() * 40), after: cursor }),
      );
      const page = data?.products;
      if (page) {
        for (const p of page.data) if (ids.length < 1000) ids.push(p.id);
        cursor = page.paginatorInfo.hasMorePages ? page.paginatorInfo.endCursor : null;
      }
    } else if (roll < 0.93) {
      await timed(stats, 'product', () =>
        graphql(base, token!, PRODUCT_QUERY, { id: ids[Math.floor(random() * ids.length)] }),
      );
    } else {
      const old = token;
      await timed(stats, 'logout', async () => {
        const res = await fetch(`${base}/api/v1/logout`, {
          method: 'POST',
          headers: { authorization: `Bearer ${old}` },
        });
        await res.arrayBuffer();
        return { ok: res.status === 200, what: String(res.status) };
      });
      token = await login(stats, base, email, password);
    }
  }
}
