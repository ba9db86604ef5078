import type { CatalogDb, PriceMode, RuleKind } from '../../src/modules/catalog/tools.ts';

/**
 * The demo's configurable products: hand-written trees with base prices, required steps, selection
 * bounds, prices that replace the base and rules between choices, so that `configure` and
 * `saveConfiguration` have something to show. Written straight into the tables, as the generated
 * catalogue is (a seed runs before the service serves; clients author the same things, rules included,
 * through the write mutations). They come after the generated products, which keep their ids and
 * answers; on the fresh embedded database the desk is product 51 and its customisations 3001-3010
 * (the GraphiQL `Configure` tab and docs/configuring.md name those ids).
 */

interface DemoCustomisation {
  name: string;
  type: 'dropdown' | 'colour' | 'text' | 'image' | 'typography';
  price: string;
  priceMode?: PriceMode;
}
interface DemoComponent {
  name: string;
  minSelections?: number;
  /** null: no limit; omitted: 1, the default. */
  maxSelections?: number | null;
  customisations: DemoCustomisation[];
}
interface DemoStep {
  name: string;
  required?: boolean;
  components: DemoComponent[];
}
interface DemoRule {
  kind: RuleKind;
  /** Customisation names, unique within the product. */
  customisation: string;
  other: string;
  message?: string;
}
export interface DemoProduct {
  name: string;
  sku: string;
  basePrice: string;
  currency: string;
  steps: DemoStep[];
  rules: DemoRule[];
}

export const DEMO_DESK_SKU = 'DEMO-DESK';
export const DEMO_WALLET_SKU = 'DEMO-WALLET';

export const CONFIGURABLE_DEMO_PRODUCTS: readonly DemoProduct[] = [
  {
    name: 'Configurable Walnut Desk',
    sku: DEMO_DESK_SKU,
    basePrice: '399.00',
    currency: 'EUR',
    steps: [
      {
        // A size must be chosen, and its price is the desk's price.
        name: 'Choose a size',
        required: true,
        components: [
          {
            name: 'Top',
            customisations: [
              { name: '120 x 60 cm', type: 'dropdown', price: '399.00', priceMode: 'REPLACE_BASE' },
              { name: '160 x 80 cm', type: 'dropdown', price: '549.00', priceMode: 'REPLACE_BASE' },
              { name: '200 x 90 cm', type: 'dropdown', price: '699.00', priceMode: 'REPLACE_BASE' },
            ],
          },
        ],
      },
      {
        name: 'Select a finish',
        components: [
          {
            name: 'Surface',
            customisations: [
              { name: 'Natural oil', type: 'colour', price: '0.00' },
              { name: 'Matte lacquer', type: 'colour', price: '45.00' },
              { name: 'High-gloss lacquer', type: 'colour', price: '79.00' },
            ],
          },
          {
            name: 'Protection',
            maxSelections: null,
            customisations: [
              { name: 'Stain-resistant coating', type: 'dropdown', price: '29.00' },
              { name: 'Felt pads', type: 'dropdown', price: '9.50' },
            ],
          },
        ],
      },
      {
        name: 'Add engraving',
        components: [
          { name: 'Plaque', customisations: [{ name: 'Brass plaque', type: 'dropdown', price: '25.00' }] },
          { name: 'Engraving', customisations: [{ name: 'Engraved text', type: 'text', price: '15.00' }] },
        ],
      },
    ],
    rules: [
      {
        kind: 'EXCLUDES',
        customisation: 'Natural oil',
        other: 'Stain-resistant coating',
        message: 'A natural oil finish cannot take the stain-resistant coating.',
      },
      {
        kind: 'REQUIRES',
        customisation: 'Engraved text',
        other: 'Brass plaque',
        message: 'The text is engraved on the brass plaque: choose the plaque too.',
      },
    ],
  },
  {
    name: 'Personalised Leather Wallet',
    sku: DEMO_WALLET_SKU,
    basePrice: '59.00',
    currency: 'EUR',
    steps: [
      {
        name: 'Pick a leather',
        components: [
          {
            // Exactly one leather: the bounds say it, no rule needed.
            name: 'Leather',
            minSelections: 1,
            customisations: [
              { name: 'Tan', type: 'colour', price: '0.00' },
              { name: 'Black', type: 'colour', price: '0.00' },
              { name: 'Cognac', type: 'colour', price: '12.00' },
            ],
          },
        ],
      },
      {
        name: 'Personalise',
        components: [
          { name: 'Monogram', customisations: [{ name: 'Monogram', type: 'text', price: '8.00' }] },
          { name: 'Lettering', customisations: [{ name: 'Lettering style', type: 'typography', price: '0.00' }] },
        ],
      },
      {
        name: 'Select packaging',
        components: [
          {
            name: 'Packaging',
            maxSelections: null,
            customisations: [
              { name: 'Gift box', type: 'dropdown', price: '6.00' },
              { name: 'Recycled sleeve', type: 'dropdown', price: '0.00' },
              { name: 'Gift note', type: 'text', price: '2.00' },
            ],
          },
        ],
      },
    ],
    rules: [
      {
        kind: 'REQUIRES',
        customisation: 'Lettering style',
        other: 'Monogram',
        message: 'A lettering style is for the monogram: add one.',
      },
      { kind: 'EXCLUDES', customisation: 'Gift box', other: 'Recycled sleeve' },
      { kind: 'REQUIRES', customisation: 'Gift note', other: 'Gift box' },
    ],
  },
];

/**
 * Inserts the products (in one transaction, in order: ids follow the list). A product whose sku
 * exists already is skipped whole. Returns the products inserted.
 */
export async function seedConfigurableProducts(
  db: CatalogDb,
  products: readonly DemoProduct[] = CONFIGURABLE_DEMO_PRODUCTS,
): Promise<number> {
  return db.transaction().execute(async (trx) => {
    let inserted = 0;
    for (const product of products) {
      const row = await trx
        .insertInto('products')
        .values({ name: product.name, sku: product.sku, base_price: product.basePrice, currency: product.currency })
        .onConflict((oc) => oc.columns(['tenant_id', 'sku']).doNothing())
        .returning('id')
        .executeTakeFirst();
      if (!row) continue;
      inserted++;
      const idByName = new Map<string, string>();
      for (const [s, step] of product.steps.entries()) {
        const { id: stepId } = await trx
          .insertInto('steps')
          .values({ product_id: row.id, name: step.name, order: s + 1, required: step.required ?? false })
          .returning('id')
          .executeTakeFirstOrThrow();
        for (const [c, component] of step.components.entries()) {
          const { id: componentId } = await trx
            .insertInto('components')
            .values({
              step_id: stepId,
              name: component.name,
              position: c + 1,
              min_selections: component.minSelections ?? 0,
              max_selections: component.maxSelections === undefined ? 1 : component.maxSelections,
            })
            .returning('id')
            .executeTakeFirstOrThrow();
          for (const customisation of component.customisations) {
            const { id } = await trx
              .insertInto('customisations')
              .values({
                component_id: componentId,
                name: customisation.name,
                type: customisation.type,
                price: customisation.price,
                price_mode: customisation.priceMode ?? 'ADD',
              })
              .returning('id')
              .executeTakeFirstOrThrow();
            if (idByName.has(customisation.name))
              throw new Error(`demo product ${product.sku}: two customisations named ${customisation.name}`);
            idByName.set(customisation.name, id);
          }
        }
      }
      const end = (name: string) => {
        const id = idByName.get(name);
        if (id === undefined) throw new Error(`demo product ${product.sku}: no customisation named ${name}`);
        return id;
      };
      if (product.rules.length > 0) {
        await trx
          .insertInto('configuration_rules')
          .values(
            product.rules.map((rule) => ({
              product_id: row.id,
              kind: rule.kind,
              customisation_id: end(rule.customisation),
              other_customisation_id: end(rule.other),
              message: rule.message ?? null,
            })),
          )
          .execute();
      }
    }
    return inserted;
  });
}
