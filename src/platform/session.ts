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
}

/** Resolves an Authorization header to a session; null for every kind of bad or missing token. */
export type Authenticate = (authorization: string | undefined) => Promise<Session | null>;
