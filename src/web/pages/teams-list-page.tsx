import { useState } from 'preact/hooks';
import type { Document, ListDocument } from '../api/jsonapi-types';
import { segment } from '../api/api-client';
import { useApi } from '../api/use-api';
import { EmptyState, Loader } from '../components/page-states';
import { PageTitle } from '../components/page-title';
import { paths } from '../router/console-paths';
import { href } from '../router/history-router';
import { useSession, type OrganizationAttributes } from '../session/session-context';
import type { TeamAttributes } from '../teams/team-types';
import { CreateTeamForm } from '../teams/create-team-form';
import { ListTable } from '../components/list-table';

/** An organization's teams: search by name (`q`), visibility and member counts; create one if allowed. */
export function TeamsListPage(props: { organization: string }) {
  const { api } = useSession();
  const [query, setQuery] = useState('');
  const [search, setSearch] = useState('');
  const organization = useApi(() => api.get<Document<OrganizationAttributes>>(`/organizations/${segment(props.organization)}`), [props.organization]);
  const teams = useApi(
    () => api.get<ListDocument<TeamAttributes>>(`/organizations/${segment(props.organization)}/teams`, { q: search || undefined, 'page[size]': '100' }),
    [props.organization, search],
  );
  const canCreate = organization.data?.data.attributes.permissions?.['can-create-team'] === true;
  return (
    <>
      <PageTitle>{`Teams of ${props.organization}`}</PageTitle>
      <form
        role="search"
        class="inline-form"
        onSubmit={(event) => {
          event.preventDefault();
          setSearch(query.trim());
        }}
      >
        <label for="team-search">Search teams by name</label>
        <input id="team-search" type="search" value={query} onInput={(event) => setQuery((event.target as HTMLInputElement).value)} />
        <button type="submit">Search</button>
        {search && (
          <button
            type="button"
            class="secondary"
            onClick={() => {
              setQuery('');
              setSearch('');
            }}
          >
            Clear
          </button>
        )}
      </form>
      <Loader result={teams} what="teams">
        {(document) =>
          document.data.length === 0 ? (
            <EmptyState>{search ? `No team you can see matches “${search}”.` : 'No team you can see in this organization.'}</EmptyState>
          ) : (
            <>
              <ListTable caption={`Teams of ${props.organization}`} columns={['Name', 'Visibility', 'Members']}>
                  {document.data.map((team) => (
                    <tr key={team.id}>
                      <td data-label="Name">
                        <a href={href(paths.team(props.organization, team.id))}>{team.attributes.name}</a>
                      </td>
                      <td data-label="Visibility">{team.attributes.visibility === 'secret' ? 'Secret' : 'Visible to the organization'}</td>
                      <td data-label="Members">{team.attributes['non-service-users-count']}</td>
                    </tr>
                  ))}
              </ListTable>
              <p class="muted">
                Member counts leave out the <code>api-team_</code> service accounts that team tokens act as, as HCP Terraform's
                interface does.
                {(document.meta?.pagination?.['total-count'] ?? 0) > document.data.length &&
                  ` Showing ${document.data.length} of ${document.meta?.pagination?.['total-count']}: search to narrow.`}
              </p>
            </>
          )
        }
      </Loader>
      {canCreate && <CreateTeamForm organization={props.organization} />}
    </>
  );
}
