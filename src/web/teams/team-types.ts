import type { Resource } from '../api/jsonapi-types';

/** A team as /api/v2 serializes it (src/http/serializers/teams.serializer.ts). */
export interface TeamAttributes {
  name: string;
  'sso-team-id': string | null;
  'users-count': number;
  /** Members without the `api-team_` service accounts that team tokens act as. */
  'non-service-users-count': number;
  visibility: 'secret' | 'organization';
  'allow-member-token-management': boolean;
  permissions: Record<string, boolean>;
  'organization-access': Record<string, boolean>;
}

export type Team = Resource<TeamAttributes>;
