import { useState } from 'preact/hooks';
import { segment } from '../api/api-client';
import type { Document, ListDocument } from '../api/jsonapi-types';
import { useAction } from '../api/use-action';
import { useApi } from '../api/use-api';
import { EmptyState, ErrorNotice, Loader } from '../components/page-states';
import { useSession } from '../session/session-context';
import type { Team } from './team-types';
import { ListTable } from '../components/list-table';

interface TokenAttributes {
  description: string | null;
  'created-at': string;
  'last-used-at': string | null;
  'expired-at': string | null;
  token?: string;
}

/**
 * The team's API tokens: listed without their secrets; a new one's secret is shown once, with a copy
 * button, and is gone from the page when dismissed or left (the server never shows it again).
 */
export function TeamTokensSection(props: { team: Team }) {
  const { api } = useSession();
  const { team } = props;
  const can = team.attributes.permissions;
  const mayView = can['can-view-api-token'] === true;
  // Not asked for at all without the right: the API would answer 404, and the page shows no token section.
  const tokens = useApi(
    () => (mayView ? api.get<ListDocument<TokenAttributes>>(`/teams/${segment(team.id)}/authentication-tokens`) : Promise.resolve({ data: [] })),
    [team.id, mayView],
  );
  const [description, setDescription] = useState('');
  const [secret, setSecret] = useState<string | null>(null);
  const [copied, setCopied] = useState(false);
  const [confirming, setConfirming] = useState<string | null>(null);
  const create = useAction();
  const revoke = useAction();

  if (!mayView) return null;

  async function submit(event: Event) {
    event.preventDefault();
    let created: Document<TokenAttributes> | undefined;
    const done = await create.run(async () => {
      created = await api.post<Document<TokenAttributes>>(`/teams/${segment(team.id)}/authentication-tokens`, {
        data: { type: 'authentication-tokens', attributes: { description: description.trim() || null } },
      });
    });
    if (done && created) {
      setSecret(created.data.attributes.token ?? null);
      setCopied(false);
      setDescription('');
      tokens.reload();
    }
  }

  async function copy() {
    if (!secret) return;
    try {
      await navigator.clipboard.writeText(secret);
      setCopied(true);
    } catch {
      // No clipboard permission: select the text so Ctrl+C copies it.
      const box = document.getElementById('new-token-secret');
      if (box) window.getSelection()?.selectAllChildren(box);
    }
  }

  async function revokeToken(id: string) {
    const done = await revoke.run(() => api.delete(`/authentication-tokens/${segment(id)}`), 'Token revoked.');
    setConfirming(null);
    if (done) tokens.reload();
  }

  return (
    <section aria-labelledby="tokens-heading">
      <h2 id="tokens-heading">Team tokens</h2>
      {secret && (
        <div class="notice notice-ok" role="status">
          <p>
            <strong>New token created.</strong> Copy it now: it is shown only this once.
          </p>
          <p id="new-token-secret" class="secret-box" aria-label="New token">
            {secret}
          </p>
          <button type="button" onClick={copy}>
            {copied ? 'Copied' : 'Copy token'}
          </button>{' '}
          <button type="button" class="secondary" onClick={() => setSecret(null)}>
            Done, hide it
          </button>
        </div>
      )}
      <Loader result={tokens} what="team tokens">
        {(document) =>
          document.data.length === 0 ? (
            <EmptyState>This team has no tokens.</EmptyState>
          ) : (
            <ListTable caption={`Tokens of ${team.attributes.name}`} columns={['Description', 'Created', 'Last used', 'Expires']} actions={can['can-update-api-token']}>
                {document.data.map((token) => (
                  <tr key={token.id}>
                    <td data-label="Description">{token.attributes.description ?? <span class="muted">(no description)</span>}</td>
                    <td data-label="Created">{when(token.attributes['created-at'])}</td>
                    <td data-label="Last used">{token.attributes['last-used-at'] ? when(token.attributes['last-used-at']) : 'never'}</td>
                    <td data-label="Expires">{token.attributes['expired-at'] ? when(token.attributes['expired-at']) : 'never'}</td>
                    {can['can-update-api-token'] && (
                      <td>
                        {confirming === token.id ? (
                          <>
                            <button type="button" class="danger" disabled={revoke.busy} onClick={() => revokeToken(token.id)}>
                              Revoke now
                            </button>{' '}
                            <button type="button" class="secondary" onClick={() => setConfirming(null)}>
                              Keep
                            </button>
                          </>
                        ) : (
                          <button type="button" class="danger" onClick={() => setConfirming(token.id)} aria-label={`Revoke ${token.attributes.description ?? token.id}`}>
                            Revoke
                          </button>
                        )}
                      </td>
                    )}
                  </tr>
                ))}
            </ListTable>
          )
        }
      </Loader>
      {revoke.error && <ErrorNotice error={revoke.error} />}
      {revoke.message && <p role="status">{revoke.message}</p>}
      {can['can-update-api-token'] && (
        <form onSubmit={submit} class="inline-form">
          <label for="token-description">New token description</label>
          <input id="token-description" value={description} maxLength={1000} onInput={(event) => setDescription((event.target as HTMLInputElement).value)} />
          <button type="submit" disabled={create.busy}>
            Create a team token
          </button>
          {create.error && <ErrorNotice error={create.error} />}
        </form>
      )}
    </section>
  );
}

function when(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString();
}
