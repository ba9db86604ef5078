// What catalogue writes take (…Input, as GraphQL and import files give it) and what their checks make of
// it (…Values, trimmed and bounded, prices as numeric text), with the limits a product's tree keeps to.

import type { PriceMode, RuleKind } from '../generated/enums.ts';

/** Per write and parent; and per product in all, stored and new together (maxSteps is both). */
export interface WriteLimits {
  maxSteps: number;
  maxComponentsPerStep: number;
  maxCustomisationsPerComponent: number;
  maxComponentsPerProduct: number;
  maxCustomisationsPerProduct: number;
  /** Rules one product may hold (CATALOG_MAX_RULES_PER_PRODUCT); 1000 when not given. */
  maxRulesPerProduct?: number;
}

export const DEFAULT_MAX_RULES_PER_PRODUCT = 1000;
export const maxRulesOf = (limits: WriteLimits) => limits.maxRulesPerProduct ?? DEFAULT_MAX_RULES_PER_PRODUCT;

export type { PriceMode, RuleKind };

/** What a product holds, or what a write adds to it. */
export interface TreeSize {
  steps: number;
  components: number;
  customisations: number;
}

export interface CustomisationValues {
  id?: string;
  name: string;
  type: string;
  /** Two decimals, as numeric(12,2) stores it. */
  price: string;
  /** Checked input always has it; trees made in code (seed, tests) may leave it to the column's default. */
  priceMode?: PriceMode;
}
export interface ComponentValues {
  id?: string;
  name: string;
  position: number;
  minSelections?: number;
  /** null: no limit. */
  maxSelections?: number | null;
  customisations: CustomisationValues[];
}
export interface StepValues {
  id?: string;
  name: string;
  order: number;
  required?: boolean;
  components: ComponentValues[];
}
/** Where a rule's end is in a product's tree, as upsert matches children: a step's order, a component's position, a name. */
export interface CustomisationRef {
  stepOrder: number;
  componentPosition: number;
  name: string;
}
export interface RuleValues {
  kind: RuleKind;
  customisation: CustomisationRef;
  other: CustomisationRef;
  message: string | null;
}
export interface ProductValues {
  name: string;
  sku: string;
  basePrice: string;
  currency: string;
  steps: StepValues[];
  rules: RuleValues[];
}

export type Maybe<T> = T | null | undefined;
export interface CustomisationInput {
  id?: Maybe<string>;
  name: string;
  type: string;
  price: number;
  priceMode?: Maybe<PriceMode>;
}
export interface ComponentInput {
  id?: Maybe<string>;
  name: string;
  position: number;
  minSelections?: Maybe<number>;
  /** Left out: 1; null: no limit. */
  maxSelections?: Maybe<number>;
  customisations?: Maybe<readonly CustomisationInput[]>;
}
export interface StepInput {
  id?: Maybe<string>;
  name: string;
  order: number;
  required?: Maybe<boolean>;
  components?: Maybe<readonly ComponentInput[]>;
}
export interface RuleInput {
  kind: RuleKind;
  customisation: CustomisationRef;
  other: CustomisationRef;
  message?: Maybe<string>;
}
export interface ProductInput {
  name: string;
  sku: string;
  basePrice?: Maybe<number>;
  currency?: Maybe<string>;
  steps?: Maybe<readonly StepInput[]>;
  rules?: Maybe<readonly RuleInput[]>;
}
