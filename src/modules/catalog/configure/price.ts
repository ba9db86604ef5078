import type { PriceMode } from '../generated/enums.ts';
import { sumCents } from './money.ts';
import type { Chosen, ProductTree } from './tree.ts';

export interface PriceLine {
  customisationId: string;
  name: string;
  mode: PriceMode;
  amountCents: number;
}
export interface PriceBreakdown {
  currency: string;
  baseCents: number;
  lines: PriceLine[];
  totalCents: number;
}

/** A chosen customisation as it counts: known, once, with its first value. */
export interface Choice {
  customisationId: string;
  name: string;
  mode: PriceMode;
  amountCents: number;
  value: string | null;
}

export const choicesOf = (picks: readonly Chosen[]): Choice[] =>
  picks.map(({ place, value }) => ({
    customisationId: place.customisation.id,
    name: place.customisation.name,
    mode: place.customisation.priceMode,
    amountCents: place.customisation.priceCents,
    value,
  }));

/** The base, or the one REPLACE_BASE choice's amount when exactly one is chosen, plus every ADD choice. */
export function priceOf(tree: ProductTree, choices: readonly Choice[]): PriceBreakdown {
  const baseCents = tree.basePriceCents;
  const replacements = choices.filter((c) => c.mode === 'REPLACE_BASE');
  const start = replacements.length === 1 ? replacements[0]!.amountCents : baseCents;
  const added = choices.filter((c) => c.mode === 'ADD').map((c) => c.amountCents);
  const totalCents = sumCents(start, added);
  return {
    currency: tree.currency,
    baseCents,
    lines: choices.map(({ customisationId, name, mode, amountCents }) => ({
      customisationId,
      name,
      mode,
      amountCents,
    })),
    totalCents,
  };
}
