// What resolvers receive (codegen's mappers). The repository's reads return exactly these shapes, plus the
// loader's parent key, so no per-row conversion runs between SQL and GraphQL.

export interface ProductParent {
  id: string;
  name: string;
  sku: string;
}
export interface StepParent {
  id: string;
  name: string;
  order: number;
}
export interface ComponentParent {
  id: string;
  name: string;
}
export interface CustomisationParent {
  id: string;
  name: string;
  type: string;
  price: number;
}
