import { useState } from 'preact/hooks';
import type { Resource } from '../api/jsonapi-types';
import { href, navigate } from '../router/history-router';
import { ORG_NAV } from '../routes';
import type { OrganizationAttributes } from '../session/session-context';

/**
 * The header's navigation: one organization at a time. With several organizations a switcher picks which
 * (the one the page is in, else the last picked), so the header holds one row of links whatever the count:
 * with two organizations it used to hold twelve links (290 px tall at 390 px wide).
 */
export function OrganizationNav(props: { organizations: Resource<OrganizationAttributes>[]; path: string }) {
  const { organizations, path } = props;
  const [picked, setPicked] = useState<string | null>(null);
  const inPath = organizationInPath(path, organizations);
  const current = organizations.find((organization) => organization.id === (inPath ?? picked)) ?? organizations[0];
  if (!current) return null;
  const links = ORG_NAV.filter((item) => !item.permission || current.attributes.permissions?.[item.permission] === true);
  const switchTo = (id: string) => {
    setPicked(id);
    // The same section in the other organization (Teams → Teams); from a deeper page, its workspaces.
    const section = ORG_NAV.find((item) => item.pattern.replace(':org', encodeURIComponent(current.id)) === path);
    navigate((section?.pattern ?? '/:org/workspaces').replace(':org', encodeURIComponent(id)));
  };
  return (
    <nav aria-label="Main" class="org-nav">
      {organizations.length > 1 && (
        <div class="org-switcher">
          <label for="organization-switcher">Organization</label>
          <select id="organization-switcher" value={current.id} onChange={(event) => switchTo((event.target as HTMLSelectElement).value)}>
            {organizations.map((organization) => (
              <option key={organization.id} value={organization.id}>
                {organization.id}
              </option>
            ))}
          </select>
        </div>
      )}
      <ul>
        {links.map((item) => {
          const target = item.pattern.replace(':org', encodeURIComponent(current.id));
          return (
            <li key={item.pattern}>
              <a href={href(target)} aria-current={path === target ? 'page' : undefined}>
                {item.label}
              </a>
            </li>
          );
        })}
      </ul>
    </nav>
  );
}

/** The organization a console path is in (`/acme/teams` → acme), if the reader belongs to it. */
function organizationInPath(path: string, organizations: Resource<OrganizationAttributes>[]): string | null {
  const first = path.split('/')[1];
  if (!first) return null;
  let decoded: string;
  try {
    decoded = decodeURIComponent(first);
  } catch {
    return null;
  }
  return organizations.some((organization) => organization.id === decoded) ? decoded : null;
}
