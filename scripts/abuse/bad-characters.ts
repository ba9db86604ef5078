import { firstError } from './big-write.ts';
import { columns, record, type Finding, type FindingContext } from './finding.ts';
import { postGraphQL, send } from './http.ts';

const UPSERT = `mutation Up($input: UpsertProductInput!) {
  upsertProduct(input: $input) { id steps { components { customisations { id name } } } }
}`;

/** 13. Issue 20, finding 5: a NUL byte in a product name and in a token name, a lone surrogate upserted three times. */
async function run(ctx: FindingContext): Promise<void> {
  const { target } = ctx;
  const token = target.tokens[0];
  const stamp = Date.now();

  await record(ctx, { finding: '13', sent: 'createProduct with name "a\\u0000b"' }, async () => {
    const query = 'mutation ($input: CreateProductInput!) { createProduct(input: $input) { id } }';
    const x = await postGraphQL(
      target.base,
      token,
      { query, variables: { input: { name: 'a\u0000b', sku: `ABUSE-20-NUL-${stamp}` } } },
      { keepBody: true },
    );
    return { ...columns(x), notes: firstError(x.body) };
  });

  await record(ctx, { finding: '13', sent: 'POST /api/v1/tokens with name "a\\u0000b"' }, async () => {
    const x = await send(target.base, {
      method: 'POST',
      path: '/api/v1/tokens',
      body: JSON.stringify({ name: 'a\u0000b' }),
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      keepBody: true,
    });
    if (x.status === 201) {
      const made = (JSON.parse(x.body!) as { data: { token: string } }).data.token;
      await send(target.base, {
        method: 'DELETE',
        path: `/api/v1/tokens/${made.split('|')[0]}`,
        headers: { authorization: `Bearer ${token}` },
      });
    }
    return { ...columns(x), notes: (x.body ?? '').slice(0, 140) };
  });

  await record(
    ctx,
    { finding: '13', sent: 'upsertProduct ×3, one customisation named "x\\uD800y" (a lone surrogate)' },
    async () => {
      const input = {
        sku: `ABUSE-20-SURROGATE-${stamp}`,
        name: 'Surrogate',
        steps: [
          {
            name: 'Step',
            order: 0,
            components: [
              { name: 'Component', position: 0, customisations: [{ name: 'x\uD800y', type: 'colour', price: 1 }] },
            ],
          },
        ],
      };
      const seen: string[] = [];
      const statuses: string[] = [];
      let last = '';
      let ms = 0;
      let bytes = 0;
      for (let i = 0; i < 3; i++) {
        const x = await postGraphQL(target.base, token, { query: UPSERT, variables: { input } }, { keepBody: true });
        ms += x.ms;
        bytes += x.bytes;
        type Answer = {
          data?: { upsertProduct?: { steps: { components: { customisations: { id: string; name: string }[] }[] }[] } };
        };
        const c = (JSON.parse(x.body ?? '{}') as Answer).data?.upsertProduct?.steps[0]?.components[0]
          ?.customisations[0];
        statuses.push(c ? String(x.status) : `${x.status} ${firstError(x.body).split(':')[0]}`);
        if (c) {
          seen.push(c.id);
          last = `stored name ${JSON.stringify(c.name)}`;
        } else last = firstError(x.body);
      }
      const changed =
        seen.length < 2
          ? 'no id to compare'
          : new Set(seen).size > 1
            ? `id changed: ${seen.join(' → ')}`
            : `id kept: ${seen[0]}`;
      return { status: statuses.join(', '), bytes: String(bytes), ms: String(ms), notes: `${changed}; ${last}` };
    },
  );
}

export const badCharacters: Finding = { number: 13, title: 'NUL bytes and lone surrogates (issue 20, finding 5)', run };
