import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { ApiError, createApiClient } from './api/api-client';
import type { Document, ListDocument } from './api/jsonapi-types';
import { toApiError } from './api/use-api';
import { ErrorNotice } from './components/page-states';
import { PageTitle } from './components/page-title';
import { SignInPage } from './pages/sign-in-page';
import { href, interceptLinks, matchPath, useLocationPath } from './router/history-router';
import { ROUTES } from './routes';
import { OrganizationNav } from './shell/organization-nav';
import { SessionContext, type AccountAttributes, type OrganizationAttributes, type Session } from './session/session-context';
import { clearToken, readToken, saveToken } from './session/token-store';

type ShellState =
  | { kind: 'checking' }
  | { kind: 'signed-out'; error: ApiError | null; notice?: string }
  | { kind: 'signed-in'; session: Session };

/** The shell: signs in with a pasted token, then renders the header, navigation and the current page. */
export function App() {
  const [state, setState] = useState<ShellState>(() => (readToken() ? { kind: 'checking' } : { kind: 'signed-out', error: null }));

  const signOut = useCallback((notice?: string) => {
    clearToken();
    setState({ kind: 'signed-out', error: null, notice });
  }, []);

  const signIn = useCallback(
    async (token: string) => {
      const api = createApiClient(token, () => signOut('Your token is no longer accepted; sign in again.'));
      try {
        // Together, not one after the other: every page (a run's plan above all) waits for both. Both are
        // settled before an error is shown, so a refused token's second answer cannot replace that error.
        const [account, organizations] = await bothOrFirstError(
          api.get<Document<AccountAttributes>>('/account/details'),
          api.get<ListDocument<OrganizationAttributes>>('/organizations', { 'page[size]': '100' }),
        );
        saveToken(token);
        const session: Session = {
          api,
          account: account.data,
          organizations: organizations.data,
          signOut: () => signOut(),
          reloadOrganizations: async () => {
            const again = await api.get<ListDocument<OrganizationAttributes>>('/organizations', { 'page[size]': '100' });
            setState({ kind: 'signed-in', session: { ...session, organizations: again.data } });
          },
          signInAs: (other: string) => signInRef.current(other),
        };
        setState({ kind: 'signed-in', session });
      } catch (error) {
        clearToken();
        setState({ kind: 'signed-out', error: toApiError(error) });
      }
    },
    [signOut],
  );

  const signInRef = useRef(signIn);
  signInRef.current = signIn;

  useEffect(() => {
    const token = readToken();
    if (token && state.kind === 'checking') void signIn(token);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  if (state.kind === 'checking') return <p role="status" class="boot">Signing in…</p>;
  if (state.kind === 'signed-out') return <SignInPage onSignIn={signIn} error={state.error} notice={state.notice} />;
  return (
    <SessionContext.Provider value={state.session}>
      <Shell session={state.session} />
    </SessionContext.Provider>
  );
}

async function bothOrFirstError<A, B>(first: Promise<A>, second: Promise<B>): Promise<[A, B]> {
  const [a, b] = await Promise.allSettled([first, second]);
  if (a.status === 'rejected') throw a.reason;
  if (b.status === 'rejected') throw b.reason;
  return [a.value, b.value];
}

function Shell(props: { session: Session }) {
  const path = useLocationPath();
  useEffect(interceptLinks, []);
  const { account, organizations } = props.session;
  const matched = useMemo(() => {
    for (const route of ROUTES) {
      const params = matchPath(route.pattern, path);
      if (params) return { route, params };
    }
    return null;
  }, [path]);
  return (
    <>
      <a class="skip-link" href="#main" onClick={skipToMain}>
        Skip to content
      </a>
      <header class="top">
        <a class="brand" href={href('/')}>
          Teamstage
        </a>
        <OrganizationNav organizations={organizations} path={path} />
        <div class="account">
          <span class="muted">Signed in as {account.attributes.username}</span>
          <button type="button" class="secondary" onClick={() => props.session.signOut()}>
            Sign out
          </button>
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        {matched ? (
          <matched.route.page key={path} params={matched.params} />
        ) : (
          <>
            <PageTitle>Not found</PageTitle>
            <ErrorNotice error={new ApiError(404, [])} what="page" />
            <p>
              <a href={href('/')}>
                Back to your account
              </a>
            </p>
          </>
        )}
      </main>
    </>
  );
}

/** The skip link moves focus to <main> without adding a history entry for the fragment. */
function skipToMain(event: Event) {
  event.preventDefault();
  document.getElementById('main')?.focus();
}
