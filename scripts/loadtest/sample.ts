import type { Client } from './editor.ts';

interface CatalogPage {
  products: { data: { id: string }[]; paginatorInfo: { hasMorePages: boolean; endCursor: string | null } };
}

/** Product ids and the cursor before each page of 20, collected with 100-product pages as `token` sees them. */
export async function sampleCatalog(
  client: Client,
  token: string,
  limit: number,
): Promise<{ ids: string[]; cursors: (string | null)[] }> {
  const ids: string[] = [];
  const cursors: (string | null)[] = [null];
  let after: string | null = null;
  while (ids.length < limit) {
    const data: CatalogPage = await client(
      token,
      'query ($after: String) { products(first: 100, after: $after) { data { id } paginatorInfo { hasMorePages endCursor } } }',
      { after },
    );
    const page = data.products;
    ids.push(...page.data.map((p) => p.id));
    if (!page.paginatorInfo.hasMorePages) break;
    after = page.paginatorInfo.endCursor;
    cursors.push(after);
  }
  return { ids, cursors };
}
