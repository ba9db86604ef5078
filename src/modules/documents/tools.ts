// The documents module's surface for the admin CLI (scripts/admin): registering trusted documents.
// The server takes none of it; its surface is index.ts.
export {
  checkEntry,
  listDocuments,
  MAX_BYTES_PER_TENANT,
  MAX_DOCUMENTS_PER_TENANT,
  pushDocuments,
  removeDocuments,
  type PushResult,
} from './service.ts';
export type { DocumentRow } from './repository.ts';
