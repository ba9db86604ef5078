import { PRODUCT } from '../bench/queries.ts';
import { columns, record, type Finding, type FindingContext } from './finding.ts';
import { postGraphQL } from './http.ts';

const ALIASES = 15;
const pages = (first: string) =>
  Array.from({ length: ALIASES }, (_, i) => `p${i}: products(first: ${first}) { data { ${PRODUCT} } }`).join(' ');

/** Products in an answer, counted from its JSON (undefined when it is not a data answer). */
function productsIn(body: string | undefined): number | undefined {
  try {
    const data = (JSON.parse(body ?? '') as { data?: Record<string, { data: unknown[] } | null> | null }).data;
    return data ? Object.values(data).reduce((n, page) => n + (page?.data.length ?? 0), 0) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * 2. Cost limit bypass: a page size given by a variable is costed at the
 * variable's default (1), then run with the value sent (100). The same
 * document with `first: 100` written inline is the control: refused.
 */
async function run(ctx: FindingContext): Promise<void> {
  const { target } = ctx;
  const cases = [
    {
      sent: `${ALIASES} aliased products(first: $n) full tree, $n: Int = 1, variables {"n": 100}`,
      query: `query($n: Int = 1) { ${pages('$n')} }`,
      variables: { n: 100 },
    },
    { sent: `${ALIASES} aliased products(first: 100) full tree, inline (control)`, query: `{ ${pages('100')} }` },
  ];
  for (const c of cases) {
    await record(ctx, { finding: '2', sent: c.sent }, async () => {
      const x = await postGraphQL(
        target.base,
        target.tokens[0],
        { query: c.query, variables: c.variables },
        { keepBody: true },
      );
      const products = productsIn(x.body);
      const outcome = products === undefined ? `refused: ${x.body?.slice(0, 120)}` : `${products} products returned`;
      return { ...columns(x), notes: `request ${x.requestBytes} bytes; ${outcome}` };
    });
  }
}

export const variableCost: Finding = { number: 2, title: 'Cost limit bypass via variable defaults', run };
