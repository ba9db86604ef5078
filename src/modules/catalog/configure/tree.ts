import type { PriceMode, RuleKind } from '../generated/enums.ts';

// What the rules engine reads: a product's tree and rules as plain values, and the customer's selection.

export interface TreeCustomisation {
  id: string;
  name: string;
  type: string;
  /** Integer cents: at most 999,999,999,999, as numeric(12,2) holds it. */
  priceCents: number;
  priceMode: PriceMode;
}
export interface TreeComponent {
  id: string;
  name: string;
  position: number;
  minSelections: number;
  /** null: no limit. */
  maxSelections: number | null;
  customisations: readonly TreeCustomisation[];
}
export interface TreeStep {
  id: string;
  name: string;
  order: number;
  required: boolean;
  components: readonly TreeComponent[];
}
export interface TreeRule {
  id: string;
  kind: RuleKind;
  customisationId: string;
  otherCustomisationId: string;
  message: string | null;
}
export interface ProductTree {
  basePriceCents: number;
  currency: string;
  steps: readonly TreeStep[];
  rules: readonly TreeRule[];
}

export interface Selection {
  customisationId: string;
  value?: string | null | undefined;
}

/** Ids are decimal strings: shorter is smaller, then by text. */
export const compareIds = (a: string, b: string) => a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);

/** A component where it sits: ranks count in catalogue order. */
export interface ComponentPlace {
  step: TreeStep;
  stepRank: number;
  component: TreeComponent;
  componentRank: number;
}
/** A customisation where it sits, and its own rank in catalogue order. */
export interface Place extends ComponentPlace {
  customisation: TreeCustomisation;
  rank: number;
}

export interface CatalogueOrder {
  steps: TreeStep[];
  components: ComponentPlace[];
  places: Map<string, Place>;
}

/** Catalogue order: steps by order, components by position then id, customisations by id. */
export function catalogueOrder(tree: ProductTree): CatalogueOrder {
  const steps = [...tree.steps].sort((a, b) => a.order - b.order || compareIds(a.id, b.id));
  const places = new Map<string, Place>();
  const components: ComponentPlace[] = [];
  let componentRank = 0;
  let rank = 0;
  steps.forEach((step, stepRank) => {
    const ordered = [...step.components].sort((a, b) => a.position - b.position || compareIds(a.id, b.id));
    for (const component of ordered) {
      components.push({ step, stepRank, component, componentRank });
      for (const customisation of [...component.customisations].sort((a, b) => compareIds(a.id, b.id))) {
        places.set(customisation.id, { step, stepRank, component, componentRank, customisation, rank: rank++ });
      }
      componentRank++;
    }
  });
  return { steps, components, places };
}

/** A known customisation as chosen: its place, its first value, and how many times it was sent. */
export interface Chosen {
  place: Place;
  value: string | null;
  times: number;
}

export interface ReadSelection {
  /** Ids sent that name no customisation of this tree. */
  unknown: Set<string>;
  /** The known ones, once each, by id. */
  chosen: Map<string, Chosen>;
  /** The same, in catalogue order. */
  picks: Chosen[];
}

/** The selection against the tree's places: whatever order it lists its choices in, the same picks. */
export function readSelection(places: ReadonlyMap<string, Place>, selections: readonly Selection[]): ReadSelection {
  const unknown = new Set<string>();
  const chosen = new Map<string, Chosen>();
  for (const selection of selections) {
    const place = places.get(selection.customisationId);
    if (!place) {
      unknown.add(selection.customisationId);
      continue;
    }
    const seen = chosen.get(selection.customisationId);
    if (seen) seen.times++;
    else chosen.set(selection.customisationId, { place, value: selection.value ?? null, times: 1 });
  }
  const picks = [...chosen.values()].sort((a, b) => a.place.rank - b.place.rank);
  return { unknown, chosen, picks };
}
