import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { ApiClient } from '../api/api-client';
import type { Resource } from '../api/jsonapi-types';

export interface AccountAttributes {
  username: string;
  email: string | null;
  'is-service-account': boolean;
  'is-site-admin': boolean;
}

export interface OrganizationAttributes {
  name: string;
  email?: string | null;
  permissions?: Record<string, boolean>;
}

/** Who is signed in: the API client with their token, their account and their organizations. */
export interface Session {
  api: ApiClient;
  account: Resource<AccountAttributes>;
  organizations: Resource<OrganizationAttributes>[];
  signOut(): void;
  /** Reads the organizations again (after one is created or an invitation accepted). */
  reloadOrganizations(): Promise<void>;
  /** Signs in with another token in this tab (the site admin hands over to the first user they made). */
  signInAs(token: string): Promise<void>;
}

export const SessionContext = createContext<Session | null>(null);

/** The signed-in session; pages render only inside the shell, which provides one. */
export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside a signed-in shell');
  return session;
}
