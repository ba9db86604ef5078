import type { Fetcher, FetcherResult } from '@graphiql/toolkit';
import { GraphiQL, HISTORY_PLUGIN } from 'graphiql';
import { Kind, parse } from 'graphql';
import 'graphiql/style.css';
import { createRoot } from 'react-dom/client';
import {
  EXAMPLE_CONFIGURE,
  EXAMPLE_CONFIGURE_VARIABLES,
  EXAMPLE_MUTATION,
  EXAMPLE_QUERY,
  EXAMPLE_VARIABLES,
} from './examples.ts';
import { session, withToken } from './session.ts';
import { SIGN_IN_PLUGIN } from './sign-in.tsx';
import './style.css';

// The server names the content-hashed worker bundles in a JSON block (the CSP allows no inline script).
const options = JSON.parse(document.getElementById('graphiql-options')!.textContent) as {
  workers: Record<string, string>;
};
(globalThis as { MonacoEnvironment?: unknown }).MonacoEnvironment = {
  globalAPI: false,
  getWorker: (_id: string, label: string) =>
    new Worker(options.workers[label] ?? options.workers['editorWorkerService']!),
};

/**
 * GraphiQL learns an edited document's operation name 100 ms after the edit (a debounce), and a tab just
 * switched to may still carry the previous tab's: run at once and it sends a name the document does not
 * define, which the server refuses ("Unknown operation named …"). A document of one operation can only
 * mean that one.
 */
function withItsOperation(params: Parameters<Fetcher>[0]): Parameters<Fetcher>[0] {
  const { query, operationName } = params as { query?: unknown; operationName?: unknown };
  if (typeof query !== 'string' || typeof operationName !== 'string') return params;
  let names: (string | undefined)[];
  try {
    names = parse(query)
      .definitions.filter((d) => d.kind === Kind.OPERATION_DEFINITION)
      .map((d) => d.name?.value);
  } catch {
    return params; // the server says what is wrong with it
  }
  if (names.length !== 1 || names.includes(operationName)) return params;
  return { ...params, operationName: names[0] ?? null };
}

/**
 * Without a token the schema fetch can only answer 401, and GraphiQL shows that in the response pane before
 * anyone ran anything: it waits for a sign-in instead (or goes at once with a tab's own Authorization header).
 */
function signedIn(): Promise<void> {
  if (session.token) return Promise.resolve();
  return new Promise((resolve) => {
    const off = session.subscribe(() => {
      if (!session.token) return;
      off();
      resolve();
    });
  });
}

/** Every tab's operations and the schema fetch: POST JSON, with the signed-in token. */
const fetcher: Fetcher = async (params, opts) => {
  const ownAuthorization = Object.keys(opts?.headers ?? {}).some((k) => k.toLowerCase() === 'authorization');
  if ((params as { operationName?: unknown }).operationName === 'IntrospectionQuery' && !ownAuthorization) {
    await signedIn();
  }
  const res = await fetch(location.pathname, {
    method: 'POST',
    headers: withToken({ 'Content-Type': 'application/json', Accept: 'application/json', ...(opts?.headers ?? {}) }),
    body: JSON.stringify(withItsOperation(params)),
  });
  // eslint-disable-next-line @typescript-eslint/no-unsafe-return -- typescript-eslint leaves @graphiql/toolkit's types unresolved; tsc resolves them
  return (await res.json()) as FetcherResult;
};

// The address carries the active tab's operation (?query=&variables=), so reload, bookmark and share
// open it again. Given one, it is the first tab; else GraphiQL's stored tabs, or the examples.
const url = new URL(location.href);
const urlQuery = url.searchParams.get('query') ?? undefined;
const urlVariables = url.searchParams.get('variables') ?? undefined;
const examples = [
  { query: EXAMPLE_QUERY },
  { query: EXAMPLE_MUTATION, variables: EXAMPLE_VARIABLES },
  { query: EXAMPLE_CONFIGURE, variables: EXAMPLE_CONFIGURE_VARIABLES },
];

function syncAddress(query: string | null | undefined, variables: string | null | undefined) {
  const next = new URL(location.href);
  next.search = '';
  if (query) next.searchParams.set('query', query);
  if (query && variables && variables.trim()) next.searchParams.set('variables', variables);
  if (next.href !== location.href) history.replaceState(null, '', next);
}

// GraphiQL stores its tabs 500 ms after each change, and a reload drops the pending write: a tab opened
// or edited just before a reload would be gone. Store the last state when the page goes, in GraphiQL's
// own key and form (headers are not persisted here).
type TabsState = Parameters<NonNullable<Parameters<typeof GraphiQL>[0]['onTabChange']>>[0];
let latestTabs: TabsState | undefined;
addEventListener('pagehide', () => {
  if (!latestTabs) return;
  const dropped = new Set(['hash', 'response', 'headers']);
  localStorage.setItem(
    'graphiql:tabState',
    JSON.stringify(latestTabs, (k, v: unknown) => (dropped.has(k) ? null : v)),
  );
});

createRoot(document.getElementById('root')!).render(
  <GraphiQL
    fetcher={fetcher}
    plugins={[SIGN_IN_PLUGIN, HISTORY_PLUGIN]}
    visiblePlugin={session.token ? undefined : SIGN_IN_PLUGIN}
    defaultTabs={urlQuery ? [{ query: urlQuery, variables: urlVariables ?? null }, ...examples] : examples}
    {...(urlQuery ? { initialQuery: urlQuery, initialVariables: urlVariables ?? '' } : {})}
    shouldPersistHeaders={false}
    showPersistHeadersSettings={false}
    isHeadersEditorEnabled
    onTabChange={(tabs) => {
      latestTabs = tabs;
      const tab = tabs.tabs[tabs.activeTabIndex];
      syncAddress(tab?.query, tab?.variables);
    }}
  />,
);
