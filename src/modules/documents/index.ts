import type { Module } from '../module.ts';
import { createTrustedDocumentStore } from './store.ts';
import type { DocumentTables } from './tables.ts';
import type { Config } from '../../config.ts';

export type { DocumentTables } from './tables.ts';
export { DOCUMENTS_CHANGED, type TrustedDocumentStore } from './store.ts';

/** Lets a token send full documents when GRAPHQL_TRUSTED_DOCUMENTS=require (administrators' tokens always may). */
export const GRAPHQL_ANY = 'graphql:any';

export type TrustedDocumentsMode = Config['graphql']['trustedDocuments'];

/** Trusted documents: registered ahead of time with the command line (tools.ts), run by their hash. */
export const documentsModule = {
  name: 'documents',
  abilities: [
    {
      name: GRAPHQL_ANY,
      description: 'Send any GraphQL document, not only trusted ones, when GRAPHQL_TRUSTED_DOCUMENTS=require.',
    },
  ],
  settings: ({ graphql }) => ({ mode: graphql.trustedDocuments }),
  // No routes: the documents are pushed with the command line; the GraphQL endpoint takes the store.
  create: ({ db, config, changes }) => ({
    routes: [],
    trustedDocuments: config.mode === 'off' ? undefined : createTrustedDocumentStore({ db, changes }),
  }),
} satisfies Module<DocumentTables, { mode: TrustedDocumentsMode }>;
