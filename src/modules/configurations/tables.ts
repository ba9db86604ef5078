import type { ColumnType, Generated, Kysely } from 'kysely';
import type { PriceMode } from '../catalog/index.ts';

/** A chosen customisation as saved: name and price as they were, the customer's value as sent. */
export interface SavedSelectionRow {
  customisationId: string;
  name: string;
  value: string | null;
  mode: PriceMode;
  amountCents: number;
}

export interface ConfigurationTable {
  /** The customer company owning the row; set by the database from the transaction's tenant. */
  tenant_id: Generated<string>;
  id: string;
  /** No foreign key: a configuration outlives its product. */
  product_id: string;
  user_id: string | null;
  token_id: string | null;
  selections: ColumnType<SavedSelectionRow[], string, never>;
  base_cents: ColumnType<string, number, never>;
  total_cents: ColumnType<string, number, never>;
  currency: string;
  product_updated_at: ColumnType<Date, Date, never>;
  created_at: Generated<Date>;
}

export interface ConfigurationTables {
  configurations: ConfigurationTable;
}

export type ConfigurationDb = Kysely<ConfigurationTables>;
