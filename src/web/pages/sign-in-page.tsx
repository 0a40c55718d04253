import { useState } from 'preact/hooks';
import type { ApiError } from '../api/api-client';
import { ErrorNotice } from '../components/page-states';

/**
 * Sign-in by pasting an API token (a user or team token). The shell checks it against
 * /api/v2/account/details before keeping it; the field is a password field so it is not shown or remembered.
 */
export function SignInPage(props: { onSignIn: (token: string) => Promise<void>; error: ApiError | null; notice?: string }) {
  const [token, setToken] = useState('');
  const [busy, setBusy] = useState(false);
  async function submit(event: Event) {
    event.preventDefault();
    const trimmed = token.trim();
    if (!trimmed) return;
    setBusy(true);
    try {
      await props.onSignIn(trimmed);
    } finally {
      setBusy(false);
    }
  }
  return (
    <main id="main" class="sign-in">
      <h1>Sign in to Teamstage</h1>
      {props.notice && <p role="status" class="notice">{props.notice}</p>}
      <form onSubmit={submit} aria-describedby="token-help">
        <label for="token">API token</label>
        <input
          id="token"
          name="token"
          type="password"
          autocomplete="off"
          spellcheck={false}
          required
          value={token}
          onInput={(event) => setToken((event.target as HTMLInputElement).value)}
          aria-invalid={props.error ? 'true' : undefined}
          aria-describedby={props.error ? 'token-help sign-in-error' : 'token-help'}
        />
        <p id="token-help" class="muted">
          Paste a user or team token. It is kept in this tab only (sessionStorage) and sent to this server's API; signing out
          or closing the tab forgets it.
        </p>
        {props.error && (
          <div id="sign-in-error">
            {props.error.status === 401 ? (
              <p role="alert" class="field-error">That token was not accepted: it may be mistyped, revoked or expired.</p>
            ) : (
              <ErrorNotice error={props.error} />
            )}
          </div>
        )}
        <button type="submit" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}
