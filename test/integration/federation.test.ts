import { composeServices } from '@apollo/composition';
import { parse } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedCatalog } from '../../db/seeds/catalog.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { FEDERATION_SECRET, GATEWAY_HEADERS, postGraphQL } from '../support/edge.ts';

let t: TestApp;
let token: string;
let productIds: string[];
beforeAll(async () => {
  t = await startTestApp({ env: { FEDERATION_SECRET } });
  const user = await t.createUser();
  token = await t.login(user.email, user.password);
  await seedCatalog(t.database.handle.db, {
    products: 100,
    seed: 6,
    shape: { steps: 2, components: 2, customisations: 2 },
  });
  const page = await t.graphql('{ products(first: 100) { data { id } } }', { token });
  productIds = page.body.data.products.data.map((p: { id: string }) => p.id);
  expect(productIds).toHaveLength(100);
});
afterAll(() => t.close());

const ENTITIES = /* GraphQL */ `
  query Entities($representations: [_Any!]!) {
    _entities(representations: $representations) {
      __typename
      ... on Product {
        id
        name
        steps {
          id
          order
          components {
            id
            customisations {
              id
              type
              price
            }
          }
        }
      }
    }
  }
`;

/** A request as the federation gateway sends it. */
const asGateway = (query: string, variables?: Record<string, unknown>) =>
  postGraphQL(t, token, { query, variables }, GATEWAY_HEADERS);

/** Statements the app sent for one operation (authentication included). */
async function statementsFor(query: string, variables: Record<string, unknown>) {
  t.database.queries.reset();
  const res = await asGateway(query, variables);
  expect(res.status).toBe(200);
  expect(res.body.errors).toBeUndefined();
  return { body: res.body, statements: t.database.queries.count };
}

describe('federation subgraph', () => {
  it('publishes its SDL with @link and @key through _service', async () => {
    const res = await asGateway('{ _service { sdl } }');
    const sdl: string = res.body.data._service.sdl;
    expect(sdl).toContain('@link(url: "https://specs.apollo.dev/federation/v2.6"');
    for (const type of ['Product', 'Step', 'Component', 'Customisation']) {
      expect(sdl).toMatch(new RegExp(`type ${type}\\s+@key\\(fields: "id"\\)`));
    }
  });

  it('composes into a supergraph with @apollo/composition', async () => {
    const res = await asGateway('{ _service { sdl } }');
    const result = composeServices([
      { name: 'catalog', url: `${t.url}/graphql`, typeDefs: parse(res.body.data._service.sdl) },
    ]);
    expect(result.errors).toBeUndefined();
    expect(result.supergraphSdl).toContain('@join__type(graph: CATALOG, key: "id")');
    expect(result.supergraphSdl).toMatch(/products\(\s*"""[^]*?first: Int! = 20/);
  });

  it('resolves 100 product references with the same statements as one (one per level)', async () => {
    const one = await statementsFor(ENTITIES, {
      representations: [{ __typename: 'Product', id: productIds[0] }],
    });
    const hundred = await statementsFor(ENTITIES, {
      representations: productIds.map((id) => ({ __typename: 'Product', id })),
    });
    expect(hundred.body.data._entities).toHaveLength(100);
    expect(hundred.body.data._entities.map((p: { id: string }) => p.id)).toEqual(productIds);
    expect(hundred.body.data._entities[0]).toEqual(one.body.data._entities[0]);
    expect(hundred.body.data._entities[99].steps[1].components[1].customisations).toHaveLength(2);
    expect(hundred.statements).toBe(one.statements);
    // Products, steps, components, customisations: one each, plus authentication.
    const catalogStatements = t.database.queries.statements.filter((s) =>
      /from "?(products|steps|components|customisations)"?/i.test(s),
    );
    expect(catalogStatements).toHaveLength(4);
  });

  it('answers the same product through _entities as through product(id)', async () => {
    const id = productIds[41]!;
    const direct = await t.graphql(
      `query ($id: ID!) { product(id: $id) { __typename id name steps { id order components { id customisations { id type price } } } } }`,
      { token, variables: { id } },
    );
    const viaEntities = await statementsFor(ENTITIES, { representations: [{ __typename: 'Product', id }] });
    expect(viaEntities.body.data._entities[0]).toEqual(direct.body.data.product);
  });

  it('resolves steps, components and customisations by id, one statement per type, null for unknown ids', async () => {
    const tree = await t.graphql(
      `query ($id: ID!) { product(id: $id) { steps { id name components { id name customisations { id name price } } } } }`,
      { token, variables: { id: productIds[0] } },
    );
    const step = tree.body.data.product.steps[0];
    const component = step.components[0];
    const customisation = component.customisations[0];
    const query = /* GraphQL */ `
      query ($representations: [_Any!]!) {
        _entities(representations: $representations) {
          __typename
          ... on Step {
            id
            name
          }
          ... on Component {
            id
            name
          }
          ... on Customisation {
            id
            name
            price
          }
        }
      }
    `;
    const { body } = await statementsFor(query, {
      representations: [
        { __typename: 'Step', id: step.id },
        { __typename: 'Component', id: component.id },
        { __typename: 'Customisation', id: customisation.id },
        { __typename: 'Customisation', id: '999999999' },
        { __typename: 'Step', id: 'not-a-number' },
      ],
    });
    expect(body.data._entities).toEqual([
      { __typename: 'Step', id: step.id, name: step.name },
      { __typename: 'Component', id: component.id, name: component.name },
      { __typename: 'Customisation', ...customisation },
      null,
      null,
    ]);
    // By the table each statement reads (quoted by the query builder; a row's product is a subquery).
    const byType = (table: string) => t.database.queries.statements.filter((s) => s.includes(`from "${table}"`)).length;
    expect([byType('steps'), byType('components'), byType('customisations')]).toEqual([1, 1, 1]);
  });
});
