import { record, type Finding, type FindingContext } from './finding.ts';
import { postGraphQL } from './http.ts';
import { thousands } from './measure.ts';

const STEPS = 80;
const COMPONENTS = 50;
const CUSTOMISATIONS = 75;

/** What an answer's first error says, briefly. */
export function firstError(body: string | undefined): string {
  try {
    type Error = { message: string; extensions?: { code?: string } & Record<string, unknown> };
    const e = (JSON.parse(body ?? '') as { errors?: Error[] }).errors?.[0];
    if (!e) return 'no error';
    // The details a refusal carries (which field, which limit), briefly.
    const { code, ...details } = e.extensions ?? {};
    const more = Object.keys(details).length ? ` ${JSON.stringify(details).slice(0, 160)}` : '';
    return `${code ?? 'no code'}: ${e.message.slice(0, 140)}${more}`;
  } catch {
    return `not JSON: ${(body ?? '').slice(0, 80)}`;
  }
}

/**
 * 12. Issue 20, finding 3: one createProduct whose 80 inline steps all name the same list variable
 * ($components: 50 components × 75 customisations), 300,000 customisations from one request.
 */
async function run(ctx: FindingContext): Promise<void> {
  const { target } = ctx;
  const components = Array.from({ length: COMPONENTS }, (_, c) => ({
    name: `Component ${c}`,
    position: c,
    customisations: Array.from({ length: CUSTOMISATIONS }, (_, x) => ({
      name: `Option ${x}`,
      type: 'colour',
      price: x,
    })),
  }));
  const steps = Array.from({ length: STEPS }, (_, s) => `{name:"S${s}",order:${s},components:$c}`).join(' ');
  const sku = `ABUSE-20-BIG-${Date.now()}`;
  const query = `mutation Big($c:[StepComponentInput!]){createProduct(input:{name:"Big",sku:"${sku}",steps:[${steps}]}){id}}`;
  const rows = STEPS * (1 + COMPONENTS * (1 + CUSTOMISATIONS));
  await record(
    ctx,
    {
      finding: '12',
      sent: `createProduct: ${STEPS} inline steps reusing $c (${COMPONENTS} components × ${CUSTOMISATIONS} customisations), ${thousands(rows)} rows`,
    },
    async () => {
      const x = await postGraphQL(
        target.base,
        target.tokens[0],
        { query, variables: { c: components } },
        { keepBody: true, timeoutMs: 180_000 },
      );
      const retry = x.headers['retry-after'];
      const created = x.status === 200 && !x.body?.includes('"errors"');
      if (created) {
        const id = (JSON.parse(x.body!) as { data: { createProduct: { id: string } } }).data.createProduct.id;
        await postGraphQL(
          target.base,
          target.tokens[0],
          { query: `mutation { deleteProduct(id: "${id}") { id } }` },
          { timeoutMs: 180_000 },
        );
      }
      return {
        status: String(x.status || `– (${x.error})`),
        bytes: thousands(x.bytes),
        ms: thousands(x.ms),
        notes: `request ${thousands(x.requestBytes)} bytes; Retry-After: ${retry ?? 'absent'}; ${created ? 'created (deleted again)' : firstError(x.body)}`,
      };
    },
  );
}

export const bigWrite: Finding = {
  number: 12,
  title: 'A 300,000-row createProduct from one reused list variable (issue 20, finding 3)',
  run,
};
