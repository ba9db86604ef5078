// What resolvers receive (codegen's mappers). The repository's reads return exactly these shapes, plus the
// loader's parent key, so no per-row conversion runs between SQL and GraphQL. Timestamps are epoch
// milliseconds: a number costs pg no Date per row, and DateTime serializes only the ones selected.

interface Stamped {
  createdAt: number;
  updatedAt: number;
}

export interface ProductParent extends Stamped {
  id: string;
  name: string;
  sku: string;
  /** Rows in the product's tree: not fields, they bound the answer before the tree is read (answer-size.ts). */
  stepCount: number;
  componentCount: number;
  customisationCount: number;
}
export interface StepParent extends Stamped {
  id: string;
  name: string;
  order: number;
}
export interface ComponentParent extends Stamped {
  id: string;
  name: string;
  position: number;
}
export interface CustomisationParent extends Stamped {
  id: string;
  name: string;
  type: string;
  price: number;
}
