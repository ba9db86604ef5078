import type { Config } from '../../src/config.ts';

/** Where an option sits in the largest tree: step, component in the step, option in the component, and its index in the whole tree. */
export interface OptionPlace {
  step: number;
  component: number;
  option: number;
  index: number;
}

/**
 * The largest product the configured limits accept: every total at its limit, spread as evenly as the
 * per-parent limits allow. `tree` writes it as createProduct and upsertProduct take it.
 */
export function largestTree(limits: Config['catalog']['writeLimits']) {
  const steps = limits.maxSteps;
  const componentsPerStep = Math.min(limits.maxComponentsPerStep, Math.floor(limits.maxComponentsPerProduct / steps));
  const customisationsPerComponent = Math.min(
    limits.maxCustomisationsPerComponent,
    Math.floor(limits.maxCustomisationsPerProduct / (steps * componentsPerStep)),
  );
  const tree = (sku: string, option: (at: OptionPlace) => { type: string; price: number }) => {
    let index = 0;
    return {
      name: `Largest ${sku}`,
      sku,
      steps: Array.from({ length: steps }, (_, s) => ({
        name: `Step ${s}`,
        order: s,
        components: Array.from({ length: componentsPerStep }, (_, c) => ({
          name: `Component ${s}.${c}`,
          position: c,
          customisations: Array.from({ length: customisationsPerComponent }, (_, x) => ({
            name: `Option ${x}`,
            ...option({ step: s, component: c, option: x, index: index++ }),
          })),
        })),
      })),
    };
  };
  return { steps, componentsPerStep, customisationsPerComponent, tree };
}
