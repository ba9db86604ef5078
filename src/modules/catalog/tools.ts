// The catalogue's surface for the tools around the service (scripts/, db/seeds/, the tests' data): bulk
// inserts, export and import, the rules engine alone, cursors and loaders. The server takes none of it;
// its surface is index.ts.
export type { CatalogDb } from './tables.ts';
export { countProducts } from './repository.ts';
export { analyzeCatalog, insertProductTrees, type NewProductTree } from './writes/bulk-repository.ts';
// admin catalog:export and catalog:import.
export { exportCatalog } from './writes/catalog-export.ts';
export { importCatalog, ImportStopped, type ImportItem, type ImportSummary } from './writes/catalog-import.ts';
export { MAX_TEXT_CHARACTERS, validSku } from './writes/checker.ts';
export type { ProductInput } from './writes/inputs.ts';
// measure:configure's engine-only figures.
export { evaluate, MAX_SELECTIONS, type ProductTree, type Selection, type TreeRule } from './configure/engine.ts';
// The bench's cursors, measure/embedded.ts's loaders.
export { encodeCursor } from './pagination.ts';
export { productCursorAfter } from './service.ts';
export { createCatalogLoaders, type CatalogLoaders } from './loaders.ts';
// The schema's enums, for seeds that write rows of their own.
export type { PriceMode, RuleKind } from './generated/enums.ts';
