import { useState } from 'preact/hooks';
import { segment } from '../api/api-client';
import type { Document } from '../api/jsonapi-types';
import { useAction } from '../api/use-action';
import { useApi } from '../api/use-api';
import { ConfirmAction } from '../components/confirm-action';
import { ActionOutcome, SubmitButton, TextField } from '../components/form-parts';
import { useSession } from '../session/session-context';

/**
 * How a person comes to read the trail: HCP Terraform's audit trail is read only with the organization's
 * audit trail token (their own token gets 404), so they paste it here; those who may manage it
 * (`can-manage-auditing`: owners) may instead generate one, which replaces the current one — after a
 * confirmation saying that whatever reads the trail with the old token stops.
 */
export function AuditTokenForm(props: { organization: string; mayManage: boolean; onToken: (token: string) => void }) {
  const [pasted, setPasted] = useState('');
  return (
    <section aria-labelledby="audit-token-heading">
      <h2 id="audit-token-heading">Read it with the audit trail token</h2>
      <p>
        The trail is read with the organization’s audit trail token, as HCP Terraform’s audit trail API is: your own token cannot read it. The
        token stays in this tab’s memory and is forgotten when you sign out or reload.
      </p>
      <form
        class="stacked"
        onSubmit={(event) => {
          event.preventDefault();
          if (pasted.trim()) props.onToken(pasted.trim());
        }}
      >
        <TextField id="audit-token" label="Audit trail token" type="password" autocomplete="off" required value={pasted} onValue={setPasted} />
        <SubmitButton busy={false}>Read the trail</SubmitButton>
      </form>
      {props.mayManage && <GenerateAuditToken organization={props.organization} onToken={props.onToken} />}
    </section>
  );
}

interface TokenAttributes {
  'created-at': string;
  token?: string | null;
}

function GenerateAuditToken(props: { organization: string; onToken: (token: string) => void }) {
  const { api } = useSession();
  const tokenPath = `/organizations/${segment(props.organization)}/authentication-token?token=audit-trails`;
  // 404: the organization has no audit trail token yet.
  const current = useApi(() => api.get<Document<TokenAttributes>>(tokenPath), [props.organization]);
  const [confirming, setConfirming] = useState(false);
  const [made, setMade] = useState<string | null>(null);
  const generate = useAction();
  const exists = current.state === 'ok';

  async function create() {
    setConfirming(false);
    let secret: string | null = null;
    const done = await generate.run(async () => {
      const created = await api.post<Document<TokenAttributes>>(tokenPath, { data: { type: 'authentication-tokens' } });
      secret = created.data.attributes.token ?? null;
    });
    if (done && secret) {
      setMade(secret);
      current.reload();
    }
  }

  return (
    <section class="subsection" aria-labelledby="generate-audit-token-heading">
      <h3 id="generate-audit-token-heading">Generate one</h3>
      {made ? (
        <div class="notice notice-ok" role="status">
          <p>
            <strong>A new audit trail token was made.</strong> It is shown only this once; give it to whatever reads the trail:
          </p>
          <p class="secret-box" aria-label="The new audit trail token">
            {made}
          </p>
          <button type="button" onClick={() => props.onToken(made)}>
            Read the trail with it
          </button>
        </div>
      ) : (
        <>
          <p class="muted">
            {current.state === 'loading'
              ? 'Looking for the current audit trail token…'
              : exists
                ? `The organization has an audit trail token, made ${new Date(current.data.data.attributes['created-at']).toLocaleString()}. A new one replaces it.`
                : 'The organization has no audit trail token yet.'}
          </p>
          {confirming ? (
            <ConfirmAction
              question="Replace the current audit trail token? Whatever reads the trail with it stops working."
              confirmLabel="Replace it now"
              busy={generate.busy}
              onConfirm={() => void create()}
              onCancel={() => setConfirming(false)}
            />
          ) : (
            <button type="button" class={exists ? 'danger' : undefined} disabled={generate.busy || current.state === 'loading'} onClick={() => (exists ? setConfirming(true) : void create())}>
              {exists ? 'Replace the audit trail token' : 'Generate an audit trail token'}
            </button>
          )}
        </>
      )}
      <ActionOutcome action={generate} />
    </section>
  );
}
