import type { Generated, Kysely } from 'kysely';

export interface UserTable {
  /** The customer company owning the row; set by the database from the transaction's tenant. */
  tenant_id: Generated<string>;
  id: Generated<string>;
  name: string;
  /** Always stored lowercased; a CHECK constraint holds it to that. */
  email: string;
  password_hash: string;
  is_admin: Generated<boolean>;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

export interface PersonalAccessTokenTable {
  /** The customer company owning the row; set by the database from the transaction's tenant. */
  tenant_id: Generated<string>;
  /** The `<token_id>` before the pipe of a bearer token. */
  id: Generated<string>;
  user_id: string;
  name: string;
  /** sha256 hex of everything after the pipe; the secret itself is never stored. */
  token_hash: string;
  /** Sanctum's abilities: a JSON list of strings, `["*"]` for every ability (login tokens). */
  abilities: Generated<string[]>;
  last_used_at: Date | null;
  expires_at: Date | null;
  created_at: Generated<Date>;
  /** The token it was created with; null for login tokens and the tokens made with them or by the CLI (roots). */
  parent_id: string | null;
  /** `login` (POST /api/v1/login) or `created` (POST /api/v1/tokens, token:create): each is capped per user. */
  kind: Generated<TokenKind>;
}

export type TokenKind = 'login' | 'created';

/** A fixed-window login throttle bucket (see the 0010 migration). */
export interface LoginThrottleTable {
  /** The customer company owning the row; set by the database from the transaction's tenant. */
  tenant_id: Generated<string>;
  key: string;
  hits: number;
  expires_at: Date;
}

export interface AuthTables {
  users: UserTable;
  personal_access_tokens: PersonalAccessTokenTable;
  login_throttle: LoginThrottleTable;
}

export type AuthDb = Kysely<AuthTables>;
