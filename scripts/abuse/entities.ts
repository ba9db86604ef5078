import { PRODUCT } from '../bench/queries.ts';
import { concurrently, record, columns, type Finding, type FindingContext } from './finding.ts';
import { postGraphQL } from './http.ts';

const QUERY = `query Entities($representations: [_Any!]!) {
  _entities(representations: $representations) { ... on Product { ${PRODUCT} } }
}`;
const REPRESENTATIONS = 10_000;
const CONCURRENT = 6;

/**
 * 1. Federation `_entities` amplification: one request naming 10,000 existing
 * products at full depth, alone and six at once, as an ordinary client and as
 * the gateway (the fixed service answers `_entities` only to the latter).
 */
async function run(ctx: FindingContext): Promise<void> {
  const { target } = ctx;
  const ids = target.productIds;
  const representations = Array.from({ length: REPRESENTATIONS }, (_, i) => ({
    __typename: 'Product',
    id: ids[i % ids.length]!,
  }));
  const body = JSON.stringify({ query: QUERY, variables: { representations } });
  const kb = `${(Buffer.byteLength(body) / 1024).toFixed(0)} KB request`;
  const repeats = ids.length < REPRESENTATIONS ? `; only ${ids.length} products, ids repeat` : '';
  type Mode = { who: string; headers: Record<string, string>; how: string };
  const secret = target.federationSecret;
  const modes: Mode[] = [
    { who: 'client', headers: {}, how: 'no Router-Authorization' },
    secret
      ? { who: 'gateway', headers: { 'router-authorization': secret }, how: 'with Router-Authorization' }
      : { who: 'gateway', headers: {}, how: 'no secret known: sent without Router-Authorization' },
  ];
  const post = (headers: Record<string, string>) =>
    postGraphQL(target.base, target.tokens[0], body, { headers, timeoutMs: 300_000 });

  for (const { who, headers, how } of modes) {
    await record(
      ctx,
      { finding: '1', sent: `_entities × ${REPRESENTATIONS} products, full tree, 1 request as ${who}` },
      async () => {
        const x = await post(headers);
        return { ...columns(x), notes: `${kb}, ${how}${repeats}` };
      },
      { logs: true },
    );
  }
  for (const { who, headers, how } of modes) {
    const sent = `same, ${CONCURRENT} at once as ${who}, probe running`;
    const attack = async () => {
      const answers = await concurrently(CONCURRENT, () => post(headers));
      return { ...answers, notes: `${how}; bytes summed, ms until the last answer` };
    };
    await record(ctx, { finding: '1', sent }, attack, { load: true, logs: true });
  }
}

export const entities: Finding = { number: 1, title: 'Federation _entities amplification', run };
