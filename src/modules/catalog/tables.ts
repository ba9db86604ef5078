import type { Generated, Kysely } from 'kysely';
import type { PriceMode, RuleKind } from './generated/enums.ts';

/** As pg returns them: bigint ids and numeric prices arrive as strings. */
export interface ProductTable {
  /** The customer company owning the row; set by the database from the transaction's tenant. */
  tenant_id: Generated<string>;
  id: Generated<string>;
  name: string;
  sku: string;
  base_price: Generated<string>;
  currency: Generated<string>;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
  /** The size of the product's tree, kept by triggers (migration 0015). */
  step_count: Generated<number>;
  component_count: Generated<number>;
  customisation_count: Generated<number>;
}

export interface StepTable {
  /** The customer company owning the row; set by the database from the transaction's tenant. */
  tenant_id: Generated<string>;
  id: Generated<string>;
  product_id: string;
  name: string;
  order: number;
  required: Generated<boolean>;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

export interface ComponentTable {
  /** The customer company owning the row; set by the database from the transaction's tenant. */
  tenant_id: Generated<string>;
  id: Generated<string>;
  step_id: string;
  name: string;
  position: number;
  min_selections: Generated<number>;
  max_selections: Generated<number | null>;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

export interface CustomisationTable {
  /** The customer company owning the row; set by the database from the transaction's tenant. */
  tenant_id: Generated<string>;
  id: Generated<string>;
  component_id: string;
  name: string;
  type: string;
  price: string;
  price_mode: Generated<PriceMode>;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

/** Between two customisations of one product; EXCLUDES (A, B) and (B, A) are the same rule. */
export interface ConfigurationRuleTable {
  /** The customer company owning the row; set by the database from the transaction's tenant. */
  tenant_id: Generated<string>;
  id: Generated<string>;
  product_id: string;
  kind: RuleKind;
  customisation_id: string;
  other_customisation_id: string;
  message: string | null;
  created_at: Generated<Date>;
}

export interface CatalogTables {
  products: ProductTable;
  steps: StepTable;
  components: ComponentTable;
  customisations: CustomisationTable;
  configuration_rules: ConfigurationRuleTable;
}

export type CatalogDb = Kysely<CatalogTables>;
