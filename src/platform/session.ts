/** The caller of a request, resolved once by authentication and shared by REST and GraphQL. */
export interface SessionUser {
  id: string;
  name: string;
  email: string;
  isAdmin: boolean;
  createdAt: Date;
}

export interface Session {
  tokenId: string;
  user: SessionUser;
  /** The token's abilities as stored (Sanctum's; `*` grants every ability). */
  abilities: readonly string[];
  /** What this request may do: the token's abilities, `*` expanded, limited by the user's role. */
  scopes: readonly string[];
  /** When the token stops working (its own expires_at or the instance-wide lifetime); null: never. */
  expiresAt: Date | null;
}

/** Something a token may be allowed to do, declared by the module that enforces it. */
export interface Ability {
  name: string;
  description: string;
  /** Only administrators' tokens ever hold it, whatever the token says. */
  adminOnly?: boolean;
}

/** Resolves an Authorization header to a session; null for every kind of bad or missing token. */
export type Authenticate = (authorization: string | undefined) => Promise<Session | null>;
