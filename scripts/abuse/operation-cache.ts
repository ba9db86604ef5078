import { columns, record, type Finding, type FindingContext } from './finding.ts';
import { postGraphQL } from './http.ts';

const DOCUMENT = 'query A { product(id:"1"){id name} } query B { products(first:2){data{id}} }';

/** Which operation an answer comes from, by its root field. */
function whose(body: string | undefined): string {
  try {
    const data = (JSON.parse(body ?? '') as { data?: Record<string, unknown> | null }).data;
    if (data && 'products' in data) return "B's";
    if (data && 'product' in data) return "A's";
  } catch {
    // Not JSON: reported as is below.
  }
  return `neither: ${(body ?? '').slice(0, 120)}`;
}

/**
 * 3. The compiled-operation cache keyed by document alone: one document, two
 * operations; A is run first (user 1), then B (user 2) must not get A's answer.
 */
async function run(ctx: FindingContext): Promise<void> {
  const { target } = ctx;
  await record(ctx, { finding: '3', sent: 'document {A, B} with operationName "A" (user 1)' }, async () => {
    const x = await postGraphQL(
      target.base,
      target.tokens[0],
      { query: DOCUMENT, operationName: 'A' },
      { keepBody: true },
    );
    return { ...columns(x), notes: `answer is ${whose(x.body)}` };
  });
  await record(ctx, { finding: '3', sent: 'same text with operationName "B" (user 2)' }, async () => {
    const x = await postGraphQL(
      target.base,
      target.tokens[1],
      { query: DOCUMENT, operationName: 'B' },
      { keepBody: true },
    );
    const answer = whose(x.body);
    const verdict = answer === "B's" ? "B's (correct)" : answer === "A's" ? "A's (bug: cached A served for B)" : answer;
    return { ...columns(x), notes: `answer is ${verdict}` };
  });
}

export const operationCache: Finding = { number: 3, title: 'Compiled-operation cache ignores operationName', run };
