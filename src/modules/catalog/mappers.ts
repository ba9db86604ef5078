// The GraphQL parents of the catalog types: what resolvers receive, and what
// the generated resolver types (codegen's mappers) refer to. The repository's
// reads return rows of exactly these shapes (plus the parent key a loader
// groups by), so no per-row conversion runs between SQL and GraphQL.

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
