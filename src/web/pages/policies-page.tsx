import { useState } from 'preact/hooks';
import { segment } from '../api/api-client';
import type { Document, ListDocument, Resource } from '../api/jsonapi-types';
import { useAction } from '../api/use-action';
import { useApi } from '../api/use-api';
import { ActionOutcome, CheckboxGroup, SubmitButton, TextField } from '../components/form-parts';
import { EmptyState, Loader } from '../components/page-states';
import { PageTitle } from '../components/page-title';
import { useSession, type OrganizationAttributes } from '../session/session-context';
import type { WorkspaceAttributes } from '../workspaces/workspace-types';
import { ListTable } from '../components/list-table';
import type { EnforcementLevel } from '../../shared/enforcement-levels.js';

interface PolicyAttributes {
  name: string;
  description: string | null;
  query: string;
  'enforcement-level': EnforcementLevel;
  'policy-set-count': number;
}
interface PolicySetAttributes {
  name: string;
  description: string | null;
  global: boolean;
  overridable: boolean;
}

/**
 * An organization's OPA policies and policy sets (HCP Terraform's API): what each policy checks and how
 * strictly, which sets group them and which workspaces each set applies to. Those the organization's
 * `can-update-sentinel` names (owners, `manage-policies`) create a policy (its Rego
 * is compiled by the server's OPA on upload; a refusal shows OPA's message) and a policy set.
 */
export function PoliciesPage(props: { organization: string }) {
  const { api } = useSession();
  const org = segment(props.organization);
  const organization = useApi(() => api.get<Document<OrganizationAttributes>>(`/organizations/${org}`), [props.organization]);
  const policies = useApi(() => api.get<ListDocument<PolicyAttributes>>(`/organizations/${org}/policies`, { 'page[size]': '100' }), [props.organization]);
  const sets = useApi(() => api.get<ListDocument<PolicySetAttributes>>(`/organizations/${org}/policy-sets`, { 'page[size]': '100' }), [props.organization]);
  const workspaces = useApi(() => api.get<ListDocument<WorkspaceAttributes>>(`/organizations/${org}/workspaces`, { 'page[size]': '100' }), [props.organization]);
  // HCP's name for writing policies (owners, `manage-policies`, on an edition with policies).
  const mayManage = organization.data?.data.attributes.permissions?.['can-update-sentinel'] === true;
  const policyNames = new Map((policies.data?.data ?? []).map((policy) => [policy.id, policy.attributes.name]));
  const workspaceNames = new Map((workspaces.data?.data ?? []).map((workspace) => [workspace.id, workspace.attributes.name]));
  const names = (resource: Resource<unknown>, relation: string, from: Map<string, string>) =>
    ((resource.relationships?.[relation]?.data as { id: string }[] | undefined) ?? []).map((ref) => from.get(ref.id) ?? ref.id);
  return (
    <>
      <PageTitle>{`Policies of ${props.organization}`}</PageTitle>
      <h2>Policy sets</h2>
      <Loader result={sets} what="policy sets">
        {(document) =>
          document.data.length === 0 ? (
            <EmptyState>No policy set: runs of this organization are checked by no policy.</EmptyState>
          ) : (
            <ListTable caption={`Policy sets of ${props.organization}`} columns={['Set', 'Policies', 'Workspaces', 'Override']}>
                {document.data.map((set) => (
                  <tr key={set.id}>
                    <td data-label="Set">{set.attributes.name}</td>
                    <td data-label="Policies">{names(set, 'policies', policyNames).join(', ') || '—'}</td>
                    <td data-label="Workspaces">{set.attributes.global ? 'Every workspace' : names(set, 'workspaces', workspaceNames).join(', ') || '—'}</td>
                    <td data-label="Override">{set.attributes.overridable ? 'A failed mandatory policy may be overridden' : 'No override'}</td>
                  </tr>
                ))}
            </ListTable>
          )
        }
      </Loader>
      <h2>Policies</h2>
      <Loader result={policies} what="policies">
        {(document) =>
          document.data.length === 0 ? (
            <EmptyState>No policy yet.</EmptyState>
          ) : (
            <ListTable caption={`Policies of ${props.organization}`} columns={['Policy', 'Query', 'Enforcement']}>
                {document.data.map((policy) => (
                  <tr key={policy.id}>
                    <td data-label="Policy">{policy.attributes.name}</td>
                    <td data-label="Query">
                      <code>{policy.attributes.query}</code>
                    </td>
                    <td data-label="Enforcement">{policy.attributes['enforcement-level'] === 'mandatory' ? 'Mandatory' : 'Advisory'}</td>
                  </tr>
                ))}
            </ListTable>
          )
        }
      </Loader>
      {mayManage && (
        <>
          <CreatePolicyForm organization={props.organization} onCreated={policies.reload} />
          {policies.state === 'ok' && workspaces.state === 'ok' && (
            <CreatePolicySetForm
              organization={props.organization}
              policies={policies.data.data}
              workspaces={workspaces.data.data}
              onCreated={() => {
                sets.reload();
                policies.reload();
              }}
            />
          )}
        </>
      )}
    </>
  );
}

function CreatePolicyForm(props: { organization: string; onCreated: () => void }) {
  const { api } = useSession();
  const [name, setName] = useState('');
  const [query, setQuery] = useState('data.terraform.deny');
  const [level, setLevel] = useState<EnforcementLevel>('mandatory');
  const [rego, setRego] = useState('');
  const create = useAction();
  async function submit(event: Event) {
    event.preventDefault();
    const done = await create.run(async () => {
      const created = await api.post<Document<PolicyAttributes>>(`/organizations/${segment(props.organization)}/policies`, {
        data: { type: 'policies', attributes: { name: name.trim(), kind: 'opa', query: query.trim(), 'enforcement-level': level } },
      });
      try {
        await api.putText(`/policies/${segment(created.data.id)}/upload`, rego);
      } catch (refused) {
        // Rego that does not compile leaves no policy without a body behind: the person fixes it and submits again.
        await api.delete(`/policies/${segment(created.data.id)}`).catch(() => undefined);
        throw refused;
      }
    }, 'Policy created.');
    if (done) {
      setName('');
      setRego('');
      props.onCreated();
    }
  }
  return (
    <section aria-labelledby="create-policy-heading">
      <h2 id="create-policy-heading">Create a policy</h2>
      <form class="stacked" onSubmit={submit}>
        <TextField id="policy-name" label="Policy name" required value={name} onValue={setName} error={create.error} field="name" />
        <TextField id="policy-query" label="Query (each result it yields is a failure)" required value={query} onValue={setQuery} error={create.error} field="query" />
        <fieldset>
          <legend>Enforcement</legend>
          <label class="choice">
            <input type="radio" name="policy-level" checked={level === 'mandatory'} onChange={() => setLevel('mandatory')} />
            Mandatory: a failure holds the run
          </label>
          <label class="choice">
            <input type="radio" name="policy-level" checked={level === 'advisory'} onChange={() => setLevel('advisory')} />
            Advisory: a failure is reported
          </label>
        </fieldset>
        <label for="policy-rego">Rego</label>
        <textarea id="policy-rego" class="code" rows={8} required spellcheck={false} value={rego} onInput={(event) => setRego((event.target as HTMLTextAreaElement).value)} />
        <ActionOutcome action={create} placed={['name', 'query']} what="policy" />
        <SubmitButton busy={create.busy} busyLabel="Compiling…">
          Create policy
        </SubmitButton>
      </form>
    </section>
  );
}

function CreatePolicySetForm(props: {
  organization: string;
  policies: Resource<PolicyAttributes>[];
  workspaces: Resource<WorkspaceAttributes>[];
  onCreated: () => void;
}) {
  const { api } = useSession();
  const [name, setName] = useState('');
  const [overridable, setOverridable] = useState(true);
  const [global, setGlobal] = useState(false);
  const [policyIds, setPolicyIds] = useState<string[]>([]);
  const [workspaceIds, setWorkspaceIds] = useState<string[]>([]);
  const create = useAction();
  async function submit(event: Event) {
    event.preventDefault();
    const done = await create.run(
      () =>
        api.post(`/organizations/${segment(props.organization)}/policy-sets`, {
          data: {
            type: 'policy-sets',
            attributes: { name: name.trim(), kind: 'opa', global, overridable },
            relationships: {
              policies: { data: policyIds.map((id) => ({ type: 'policies', id })) },
              workspaces: { data: global ? [] : workspaceIds.map((id) => ({ type: 'workspaces', id })) },
            },
          },
        }),
      'Policy set created.',
    );
    if (done) {
      setName('');
      setPolicyIds([]);
      setWorkspaceIds([]);
      props.onCreated();
    }
  }
  return (
    <section aria-labelledby="create-set-heading">
      <h2 id="create-set-heading">Create a policy set</h2>
      <form class="stacked" onSubmit={submit}>
        <TextField id="set-name" label="Set name" required value={name} onValue={setName} error={create.error} field="name" />
        <CheckboxGroup legend="Policies" options={props.policies.map((policy) => ({ value: policy.id, label: policy.attributes.name }))} chosen={policyIds} onChange={setPolicyIds}>
          {props.policies.length === 0 && <p class="muted">Create a policy first.</p>}
        </CheckboxGroup>
        <label class="choice">
          <input type="checkbox" checked={global} onChange={(event) => setGlobal((event.target as HTMLInputElement).checked)} />
          Every workspace of the organization
        </label>
        {!global && (
          <CheckboxGroup
            legend="Workspaces"
            options={props.workspaces.map((workspace) => ({ value: workspace.id, label: workspace.attributes.name }))}
            chosen={workspaceIds}
            onChange={setWorkspaceIds}
          >
            {props.workspaces.length === 0 && <p class="muted">No workspace yet: choose every workspace, or create one first.</p>}
          </CheckboxGroup>
        )}
        <label class="choice">
          <input type="checkbox" checked={overridable} onChange={(event) => setOverridable((event.target as HTMLInputElement).checked)} />
          A failed mandatory policy may be overridden (by those who may override policies)
        </label>
        <ActionOutcome action={create} placed={['name']} what="policy set" />
        <SubmitButton busy={create.busy}>Create policy set</SubmitButton>
      </form>
    </section>
  );
}
