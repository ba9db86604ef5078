// The page's sign-in state. The token lives in this tab's sessionStorage only: it survives a reload
// but not the browser session, other tabs and origins cannot read it, and GraphiQL's own storage
// (localStorage) never sees it because the page never persists headers.

const TOKEN_KEY = 'pcs:token';

export interface Me {
  user: { id: string; name: string; email: string; isAdmin: boolean };
  token: { id: string; name: string; abilities: string[]; expiresAt: string | null };
}

type Listener = () => void;
const listeners = new Set<Listener>();

function readToken(): string | null {
  try {
    return sessionStorage.getItem(TOKEN_KEY);
  } catch {
    return null;
  }
}

let token = readToken();

export const session = {
  get token() {
    return token;
  },
  set(next: string | null) {
    token = next;
    try {
      if (next) sessionStorage.setItem(TOKEN_KEY, next);
      else sessionStorage.removeItem(TOKEN_KEY);
    } catch {
      // Storage refused (private mode, quota): the token still lasts for this page.
    }
    for (const l of listeners) l();
  },
  subscribe(listener: Listener) {
    listeners.add(listener);
    return () => void listeners.delete(listener);
  },
};

const ME_QUERY = 'query Me { me { user { id name email isAdmin } token { id name abilities expiresAt } } }';

/** Headers for a request: the signed-in token unless the tab's own headers already name Authorization. */
export function withToken(headers: Record<string, string> = {}): Record<string, string> {
  const has = Object.keys(headers).some((k) => k.toLowerCase() === 'authorization');
  return token && !has ? { ...headers, Authorization: `Bearer ${token}` } : headers;
}

/** A GraphQL or REST answer, as far as these calls read it: `errors` is a list GraphQL or fields' messages REST. */
interface Answer {
  data?: { me?: Me; token?: string };
  errors?: unknown;
  message?: string;
}

async function postJson(url: string, body: unknown, headers: Record<string, string>) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  let json: Answer | null = null;
  try {
    json = (await res.json()) as Answer;
  } catch {
    // A proxy's HTML error page, say: the status alone speaks.
  }
  return { status: res.status, json, retryAfter: res.headers.get('Retry-After') };
}

/** Who the token belongs to; null when the service no longer accepts it. */
export async function fetchMe(): Promise<Me | null> {
  if (!token) return null;
  const { status, json } = await postJson('/graphql', { query: ME_QUERY, operationName: 'Me' }, withToken());
  if (status === 401) return null;
  if (!json?.data?.me) {
    throw new Error(
      (json?.errors as { message?: string }[] | undefined)?.[0]?.message ?? `The service answered ${status}.`,
    );
  }
  return json.data.me;
}

export async function login(email: string, password: string): Promise<void> {
  const { status, json, retryAfter } = await postJson('/api/v1/login', { email, password }, {});
  if (status === 200 && json?.data?.token) return session.set(json.data.token);
  if (status === 429) throw new Error(`Too many attempts: try again in ${retryAfter ?? 'a minute'} s.`);
  const fields = json?.errors ? Object.values(json.errors as Record<string, string[]>).flat() : [];
  throw new Error(fields[0] ?? json?.message ?? `The service answered ${status}.`);
}

/** Ends the token on the server; it is forgotten here whatever the answer (already revoked, say). */
export async function logout(): Promise<void> {
  try {
    if (token) await postJson('/api/v1/logout', {}, withToken());
  } finally {
    session.set(null);
  }
}
