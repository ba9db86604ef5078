import type { Generated, Kysely } from 'kysely';

/** As pg returns them: bigint ids and numeric prices arrive as strings. */
export interface ProductTable {
  id: Generated<string>;
  name: string;
  sku: string;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
  /** The size of the product's tree, kept by triggers (migration 0015). */
  step_count: Generated<number>;
  component_count: Generated<number>;
  customisation_count: Generated<number>;
}

export interface StepTable {
  id: Generated<string>;
  product_id: string;
  name: string;
  order: number;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

export interface ComponentTable {
  id: Generated<string>;
  step_id: string;
  name: string;
  position: number;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

export interface CustomisationTable {
  id: Generated<string>;
  component_id: string;
  name: string;
  type: string;
  price: string;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

export interface CatalogTables {
  products: ProductTable;
  steps: StepTable;
  components: ComponentTable;
  customisations: CustomisationTable;
}

export type CatalogDb = Kysely<CatalogTables>;
