import { useGraphiQLActions, type GraphiQLPlugin } from '@graphiql/react';
import { useEffect, useState, useSyncExternalStore, type FormEvent } from 'react';
import { fetchMe, login, logout, session, type Me } from './session.ts';

export const SIGN_IN_TITLE = 'Account';

function SignInIcon() {
  return (
    <svg viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth="1.5" aria-hidden="true">
      <circle cx="12" cy="8" r="4" />
      <path d="M4 21c0-4.4 3.6-8 8-8s8 3.6 8 8" />
    </svg>
  );
}

const useToken = () => useSyncExternalStore(session.subscribe, () => session.token);

function SignInPanel() {
  const { introspect } = useGraphiQLActions();
  const token = useToken();
  const [me, setMe] = useState<Me | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  // Who the token is, whenever it changes; a token the service no longer takes is forgotten.
  useEffect(() => {
    let current = true;
    setMe(null);
    if (!token) return;
    fetchMe().then(
      (found) => {
        if (!current) return;
        if (found) setMe(found);
        else {
          session.set(null);
          setError('Your session has ended: sign in again.');
        }
      },
      (e: Error) => current && setError(e.message),
    );
    return () => {
      current = false;
    };
  }, [token]);

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const field = (name: string) => {
      const value = form.get(name);
      return typeof value === 'string' ? value : '';
    };
    setBusy(true);
    setError(null);
    try {
      await login(field('email'), field('password'));
      // The schema was fetched without a token (and refused): fetch it again so Docs works at once.
      void introspect();
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  }

  async function onSignOut() {
    setBusy(true);
    try {
      await logout();
    } finally {
      setBusy(false);
      setError(null);
      void introspect();
    }
  }

  return token ? (
    <SignedIn me={me} error={error} busy={busy} onSignOut={() => void onSignOut()} />
  ) : (
    <SignInForm error={error} busy={busy} onSubmit={(event) => void onSubmit(event)} />
  );
}

interface PanelState {
  error: string | null;
  busy: boolean;
}

/** Who is signed in, with which abilities, until when; and the way out. */
function SignedIn({ me, error, busy, onSignOut }: PanelState & { me: Me | null; onSignOut: () => void }) {
  return (
    <section className="pcs-sign-in" aria-label="Signed in">
      <div className="graphiql-doc-explorer-title">Signed in</div>
      {me ? (
        <dl>
          <dt>User</dt>
          <dd data-testid="signed-in-user">
            {me.user.name} &lt;{me.user.email}&gt;{me.user.isAdmin ? ' (administrator)' : ''}
          </dd>
          <dt>Token</dt>
          <dd>
            #{me.token.id} “{me.token.name}”
          </dd>
          <dt>Abilities</dt>
          <dd>{me.token.abilities.map((a) => (a === '*' ? '* (all your role allows)' : a)).join(', ')}</dd>
          <dt>Expires</dt>
          <dd>{me.token.expiresAt ?? 'never'}</dd>
        </dl>
      ) : (
        <p>{error ?? 'Checking your token…'}</p>
      )}
      <p className="pcs-note">
        Every tab’s requests and the schema fetch carry this token. It is kept in this browser tab only.
      </p>
      <button type="button" className="graphiql-button" onClick={onSignOut} disabled={busy}>
        Sign out
      </button>
    </section>
  );
}

function SignInForm({ error, busy, onSubmit }: PanelState & { onSubmit: (event: FormEvent<HTMLFormElement>) => void }) {
  return (
    <section className="pcs-sign-in" aria-label="Sign in">
      <div className="graphiql-doc-explorer-title">Sign in</div>
      <form onSubmit={onSubmit}>
        <label>
          Email
          <input name="email" type="email" autoComplete="username" required />
        </label>
        <label>
          Password
          <input name="password" type="password" autoComplete="current-password" required />
        </label>
        <button type="submit" className="graphiql-button" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
        {error && (
          <p role="alert" className="pcs-error">
            {error}
          </p>
        )}
      </form>
      <p className="pcs-note">
        Signs in through POST /api/v1/login. The token stays in this browser tab until you sign out or close it.
      </p>
    </section>
  );
}

export const SIGN_IN_PLUGIN: GraphiQLPlugin = { title: SIGN_IN_TITLE, icon: SignInIcon, content: SignInPanel };
