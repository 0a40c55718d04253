import type { Resource } from '../jsonapi.js';
import type { PolicySetParameterRow } from '../../policies/policy-set-parameters.js';

/** Type `vars` (HCP's spelling for a policy set parameter); a sensitive value is never served back (null). */
export function policySetParameterResource(parameter: PolicySetParameterRow): Resource {
  return {
    id: parameter.id,
    type: 'vars',
    attributes: {
      key: parameter.key,
      value: parameter.sensitive === 1 ? null : parameter.value,
      category: 'policy-set',
      sensitive: parameter.sensitive === 1,
    },
    relationships: {
      configurable: { data: { id: parameter.policy_set_id, type: 'policy-sets' }, links: { related: `/api/v2/policy-sets/${parameter.policy_set_id}` } },
    },
    links: { self: `/api/v2/policy-sets/${parameter.policy_set_id}/parameters/${parameter.id}` },
  };
}
