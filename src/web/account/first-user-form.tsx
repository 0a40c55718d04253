import { useState } from 'preact/hooks';
import type { Document } from '../api/jsonapi-types';
import { useAction } from '../api/use-action';
import { ActionOutcome, SubmitButton, TextField } from '../components/form-parts';
import { useSession } from '../session/session-context';

/**
 * The site admin's first-run path: make a user (`POST /admin/users`) and a token for them
 * (`POST /users/:id/authentication-tokens`), shown once; then sign in as them in this tab, or hand the
 * token over. Organizations are made by users: the one who makes it becomes its first owner.
 */
export function FirstUserForm() {
  const { api, signInAs } = useSession();
  const [username, setUsername] = useState('');
  const [email, setEmail] = useState('');
  const [made, setMade] = useState<{ username: string; token: string } | null>(null);
  const create = useAction();

  async function submit(event: Event) {
    event.preventDefault();
    let result: { username: string; token: string } | null = null;
    const done = await create.run(async () => {
      const user = await api.post<Document<{ username: string }>>('/admin/users', {
        data: { type: 'users', attributes: { username: username.trim(), email: email.trim() } },
      });
      const token = await api.post<Document<{ token: string }>>(`/users/${encodeURIComponent(user.data.id)}/authentication-tokens`, {
        data: { type: 'authentication-tokens', attributes: { description: 'made in the console' } },
      });
      result = { username: user.data.attributes.username, token: token.data.attributes.token };
    });
    if (done && result) {
      setMade(result);
      setUsername('');
      setEmail('');
    }
  }

  return (
    <section aria-labelledby="first-user-heading">
      <h2 id="first-user-heading">Add a user</h2>
      <p>
        You are signed in with the site token, which administers this installation. Organizations belong to people: add a user,
        then sign in as them (or give them their token) to create the first organization.
      </p>
      {made ? (
        <div class="notice notice-ok" role="status">
          <p>
            <strong>{made.username} was added.</strong> Their token is shown only this once:
          </p>
          <p class="secret-box" id="first-user-token" aria-label={`Token of ${made.username}`}>
            {made.token}
          </p>
          <div class="inline-form">
            <button type="button" onClick={() => void signInAs(made.token)}>
              Sign in as {made.username}
            </button>
            <button type="button" class="secondary" onClick={() => setMade(null)}>
              Done, hide it
            </button>
          </div>
        </div>
      ) : (
        <form class="stacked" onSubmit={submit}>
          <TextField id="new-user-name" label="User name" required autocomplete="off" value={username} onValue={setUsername} error={create.error} field="username" />
          <TextField id="new-user-email" label="Email" type="email" required value={email} onValue={setEmail} error={create.error} field="email" />
          <ActionOutcome action={create} placed={['username', 'email']} />
          <SubmitButton busy={create.busy} busyLabel="Adding…">
            Add the user and make their token
          </SubmitButton>
        </form>
      )}
    </section>
  );
}
