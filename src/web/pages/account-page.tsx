import { CreateOrganizationForm } from '../account/create-organization-form';
import { FirstUserForm } from '../account/first-user-form';
import { PageTitle } from '../components/page-title';
import { EmptyState } from '../components/page-states';
import { paths } from '../router/console-paths';
import { href } from '../router/history-router';
import { useSession } from '../session/session-context';

/**
 * Home: who is signed in and their organizations (each a way into its pages). The site token adds users
 * (the first-run path); a user creates organizations.
 */
export function AccountPage() {
  const { account, organizations } = useSession();
  const attributes = account.attributes;
  const siteAdmin = attributes['is-site-admin'];
  const mayCreateOrganization = (attributes as { permissions?: Record<string, boolean> }).permissions?.['can-create-organizations'] === true;
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
        <dd>{siteAdmin ? 'Site administrator (the site token)' : attributes['is-service-account'] ? 'Service account (a team or organization token)' : 'User'}</dd>
      </dl>
      {siteAdmin && <FirstUserForm />}
      <h2>Organizations</h2>
      {organizations.length === 0 ? (
        <EmptyState>
          {siteAdmin
            ? 'No organization yet. Add a user above and sign in as them to create one.'
            : mayCreateOrganization
              ? 'You belong to no organization yet: create one below, or accept an invitation link an owner sent you.'
              : 'You belong to no organization yet. An owner of one can invite you.'}
        </EmptyState>
      ) : (
        <ul class="cards">
          {organizations.map((organization) => (
            <li key={organization.id}>
              <h3>{organization.attributes.name}</h3>
              <ul class="links">
                <li>
                  <a href={href(paths.teams(organization.id))}>Teams</a>
                </li>
                <li>
                  <a href={href(paths.people(organization.id))}>People</a>
                </li>
                <li>
                  <a href={href(paths.workspaces(organization.id))}>Workspaces</a>
                </li>
                <li>
                  <a href={href(paths.tasks(organization.id))}>Run tasks</a>
                </li>
              </ul>
            </li>
          ))}
        </ul>
      )}
      {mayCreateOrganization && <CreateOrganizationForm first={organizations.length === 0} />}
    </>
  );
}
