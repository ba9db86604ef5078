// The tabs a first visit opens with. The sign-in panel supplies the token, so they run as they are. Comment lines
// stay within 56 characters: the query editor shows about 58 at 1920 px with the Account panel open.

export const EXAMPLE_QUERY = `# Sign in with the Account panel on the left (the person
# icon), then run this query. Product "1" is the first
# product of the demo data (npm start, or npm run
# db:seed -- --demo).
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

export const EXAMPLE_MUTATION = `# Writes need an administrator (the catalog:write
# ability); the demo user is one. Run it once: a second
# run is refused with "The sku has already been taken."
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

export const EXAMPLE_CONFIGURE = `# Check and price a customer's choices without storing
# anything (catalog:read). Product "51" is the demo's
# configurable desk: a size is required and sets the
# price, "Engraved text" needs a value and the brass
# plaque, and "Natural oil" excludes the stain-resistant
# coating. This selection breaks all three rules; the
# price is given anyway. Choose "3005" (matte lacquer)
# instead of "3004", add { "customisationId": "3009" }
# (the plaque) and a "value" for 3010, and it is valid:
# saveConfiguration then stores it (docs/configuring.md
# walks through it).
query Configure($productId: ID!, $selections: [SelectionInput!]!) {
  configure(productId: $productId, selections: $selections) {
    product { name basePrice currency }
    valid
    violations { code message customisationId otherCustomisationId }
    price {
      base { amount currency }
      lines { name mode amount { amount } }
      total { amount currency }
    }
  }
}
`;

export const EXAMPLE_CONFIGURE_VARIABLES = JSON.stringify(
  {
    productId: '51',
    selections: [
      { customisationId: '3002' },
      { customisationId: '3004' },
      { customisationId: '3007' },
      { customisationId: '3010' },
    ],
  },
  null,
  2,
);
