import { idSuffix } from '../core/ids.js';
import type { Principal } from '../core/principal.js';

/** Who a run was created by, as stored and as sent to run tasks in `run_created_by`. */
export function runCreator(principal: Principal): { userId: string | null; name: string } {
  switch (principal.kind) {
    case 'user':
      return { userId: principal.userId, name: principal.username };
    case 'team':
      return { userId: principal.serviceAccountUserId, name: `api-team_${idSuffix(principal.teamId)}` };
    case 'organization':
      return { userId: null, name: `api-org_${principal.organizationName}` };
    case 'site-admin':
      return { userId: null, name: 'site-admin' };
    case 'agent':
      return { userId: null, name: `api-agent-pool_${idSuffix(principal.agentPoolId)}` };
  }
}
