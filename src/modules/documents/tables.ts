import type { Generated } from 'kysely';

/** A GraphQL document registered ahead of time by a client team, named by the SHA-256 of its text. */
export interface TrustedDocumentTable {
  tenant_id: Generated<string>;
  /** 64 lowercase hex digits: sha256 of `body` as UTF-8. */
  hash: string;
  body: string;
  created_at: Generated<Date>;
}

export interface DocumentTables {
  trusted_documents: TrustedDocumentTable;
}
