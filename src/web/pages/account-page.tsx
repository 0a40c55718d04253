import { PageTitle } from '../components/page-title';
import { EmptyState } from '../components/page-states';
import { useSession } from '../session/session-context';
import { paths } from '../router/console-paths';
import { href } from '../router/history-router';

/** Home: who is signed in and the organizations they belong to (each a way into its teams). */
export function AccountPage() {
  const { account, organizations } = useSession();
  const attributes = account.attributes;
  return (
    <>
      <PageTitle>Your account</PageTitle>
      <dl class="facts">
        <dt>User name</dt>
        <dd>{attributes.username}</dd>
        {attributes.email && (
          <>
            <dt>Email</dt>
            <dd>{attributes.email}</dd>
          </>
        )}
        <dt>Kind</dt>
        <dd>{attributes['is-service-account'] ? 'Service account (a team or organization token)' : 'User'}</dd>
      </dl>
      <h2>Organizations</h2>
      {organizations.length === 0 ? (
        <EmptyState>You belong to no organization yet. An owner of one can invite you.</EmptyState>
      ) : (
        <ul class="cards">
          {organizations.map((organization) => (
            <li key={organization.id}>
              <h3>{organization.attributes.name}</h3>
              <a href={href(paths.teams(organization.id))}>Teams</a>
            </li>
          ))}
        </ul>
      )}
    </>
  );
}
