import { TeamNamesProvider, useTeamNames } from '../actors/actor-names';
import { useState } from 'preact/hooks';
import { segment } from '../api/api-client';
import type { Document } from '../api/jsonapi-types';
import { useApi } from '../api/use-api';
import { AuditTokenForm } from '../audit/audit-token-form';
import { AuditTrailEntries } from '../audit/audit-trail-entries';
import { PageTitle } from '../components/page-title';
import { useSession, type OrganizationAttributes } from '../session/session-context';

/**
 * Audit trail tokens given in this tab, by organization: kept in memory only (never in storage), so moving
 * between pages keeps it and a reload or sign-out forgets it.
 */
const tokensInMemory = new Map<string, string>();

/**
 * The organization's audit trail (`GET /organization/audit-trail`, HCP Terraform's): who changed what and
 * when. Read with the organization's audit trail token, as HCP's API is: the person pastes it, or an owner
 * (`can-manage-auditing`) generates one here.
 */
export function AuditTrailPage(props: { organization: string }) {
  const { api } = useSession();
  const organization = useApi(() => api.get<Document<OrganizationAttributes>>(`/organizations/${segment(props.organization)}`), [props.organization]);
  const mayManage = organization.data?.data.attributes.permissions?.['can-manage-auditing'] === true;
  const [token, setToken] = useState<string | undefined>(() => tokensInMemory.get(props.organization));
  const [refusal, setRefusal] = useState<string | null>(null);
  const use = (value: string | undefined) => {
    if (value === undefined) tokensInMemory.delete(props.organization);
    else tokensInMemory.set(props.organization, value);
    setToken(value);
  };
  const teamNames = useTeamNames(api, props.organization);
  return (
    <TeamNamesProvider value={teamNames}>
      <PageTitle>{`Audit trail of ${props.organization}`}</PageTitle>
      <p>Who changed what in {props.organization}, and when, as the organization’s audit trail records it.</p>
      {refusal && (
        <div role="alert" class="notice notice-error">
          <strong>{refusal}</strong>
        </div>
      )}
      {token ? (
        <AuditTrailEntries
          organization={props.organization}
          token={token}
          onForget={() => use(undefined)}
          onRefused={(why) => {
            setRefusal(why);
            use(undefined);
          }}
        />
      ) : (
        <AuditTokenForm
          organization={props.organization}
          mayManage={mayManage}
          onToken={(value) => {
            setRefusal(null);
            use(value);
          }}
        />
      )}
    </TeamNamesProvider>
  );
}
