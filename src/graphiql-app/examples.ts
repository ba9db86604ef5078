// The tabs a first visit opens with. The sign-in panel supplies the token, so they run as they are.

export const EXAMPLE_QUERY = `# Sign in with the Account panel on the left (the person icon), then run this query.
# Product "1" is the first product of the demo data (npm run db:seed).
query Product {
  product(id: "1") {
    id
    name
    sku
    steps {
      id
      name
      order
      components {
        id
        name
        customisations { id name type price }
      }
    }
  }
}
`;

export const EXAMPLE_MUTATION = `# Writes need an administrator (the catalog:write ability); the demo user is one.
# Run it once: a second run is refused with "The sku has already been taken."
mutation CreateProduct($input: CreateProductInput!) {
  createProduct(input: $input) {
    id
    name
    sku
    updatedAt
    steps {
      id
      name
      order
      components {
        id
        name
        position
        customisations { id name type price }
      }
    }
  }
}
`;

export const EXAMPLE_VARIABLES = JSON.stringify(
  {
    input: {
      name: 'Walnut Desk',
      sku: 'DESK-001',
      steps: [
        {
          name: 'Choose a size',
          order: 1,
          components: [
            {
              name: 'Top',
              position: 1,
              customisations: [
                { name: '120 cm', type: 'dropdown', price: 0 },
                { name: '160 cm', type: 'dropdown', price: 80 },
              ],
            },
          ],
        },
      ],
    },
  },
  null,
  2,
);
