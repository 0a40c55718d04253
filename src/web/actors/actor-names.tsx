import { createContext } from 'preact';
import { useContext, useEffect, useState } from 'preact/hooks';
import { segment, type ApiClient } from '../api/api-client';
import type { ListDocument } from '../api/jsonapi-types';

/**
 * Team tokens act as service accounts named `api-team_<the team id's suffix>` (HCP Terraform's spelling), which
 * tells a reader nothing. The console names them by their team ("Team platform (team token)") from the
 * organization's teams the reader may see; one it may not see is still said to be a team token.
 */
export type TeamNames = ReadonlyMap<string, string>;

export const TeamNamesContext = createContext<TeamNames>(new Map());

export const TeamNamesProvider = TeamNamesContext.Provider;

/** The organization's teams visible to the reader, by id; empty until read, and when they cannot be read. */
export function useTeamNames(api: ApiClient, organization: string | undefined): TeamNames {
  const [names, setNames] = useState<TeamNames>(new Map());
  useEffect(() => {
    if (!organization) return;
    let current = true;
    api
      .get<ListDocument<{ name: string }>>(`/organizations/${segment(organization)}/teams`, { 'page[size]': '100' })
      .then((document) => {
        if (current) setNames(new Map(document.data.map((team) => [team.id, team.attributes.name])));
      })
      .catch(() => undefined); // a reader who may not list teams still sees "a team token"
    return () => {
      current = false;
    };
  }, [api, organization]);
  return names;
}

/** An actor's name in words: a team token by its team, an organization token as such, a person by username. */
export function actorWords(name: string, teams: TeamNames): string {
  const team = /^api-team_(.+)$/.exec(name);
  if (team) {
    const teamName = teams.get(`team-${team[1]}`);
    return teamName ? `Team ${teamName} (team token)` : 'A team token';
  }
  const organization = /^api-org-(.+)$/.exec(name);
  if (organization) return `The ${organization[1]} organization token`;
  if (name === 'api-site-admin') return 'The site admin token';
  return name;
}

/** An actor as the console names it; the account name stays on hover. */
export function ActorName(props: { name: string }) {
  const teams = useContext(TeamNamesContext);
  const words = actorWords(props.name, teams);
  return words === props.name ? <>{props.name}</> : <span title={props.name}>{words}</span>;
}
