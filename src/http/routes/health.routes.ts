import { sql } from 'kysely';
import type { FastifyInstance } from 'fastify';
import type { DatabaseHandle } from '../../db/database.js';
import { Errors } from '../../core/errors.js';
import { describeRefusal, type WriteHealth } from '../../ops/write-health.js';
import { BUILD_VERSION } from '../../core/version.js';

/**
 * Service discovery: go-tfe, the `tfe` provider and terraform/tofu's `cloud` and `remote` backends look up
 * `tfe.v2` (the newer ones `tfe.v2.1`, `tfe.v2.2`) here. Nothing else is listed on purpose: Teamstage serves
 * no module or provider registry (`modules.v1`, `providers.v1`), no state (`state.v2`) and no OAuth login
 * (`login.v1`), and a client that finds a service listed would call it. `terraform login` therefore does not
 * apply; a CLI gets its token from a `credentials` block or `TF_TOKEN_<host>` (docs/real-clients.md, "Real clients").
 */
const DISCOVERY = { 'tfe.v2': '/api/v2/', 'tfe.v2.1': '/api/v2/', 'tfe.v2.2': '/api/v2/' };

/**
 * `X-TFE-Version` on the ping: clients that are not talking to HCP Terraform (TFP-AppName is not
 * "HCP Terraform") take this as a Terraform Enterprise release and turn features on by it; without it the
 * `tfe` provider takes an old release and limits `tfe_workspace_run_task` to one stage. Teamstage follows
 * the API of this release on the endpoints it serves (several stages per workspace task among them).
 */
export const TFE_RELEASE = 'v202507-1';

/** Unauthenticated endpoints: health for orchestrators, discovery and ping for Terraform clients. */
export async function healthRoutes(app: FastifyInstance, options: { handle: DatabaseHandle; rateLimit: number; writeHealth?: WriteHealth }) {
  // Probes are never rate-limited: a load balancer checking often must not see a healthy node as down.
  const probe = { schema: { hide: true }, config: { rateLimit: false as const } };
  app.get('/healthz', probe, async () => ({ status: 'ok', version: BUILD_VERSION }));

  app.get('/readyz', probe, async () => {
    try {
      await sql`select 1`.execute(options.handle.db);
    } catch {
      throw Errors.databaseUnreachable();
    }
    const refusal = await options.writeHealth?.currentRefusal();
    if (refusal) throw Errors.writesRefused(describeRefusal(refusal));
    return { status: 'ready' };
  });

  app.get('/.well-known/terraform.json', async () => DISCOVERY);

  app.get('/api/v2/ping', { config: { public: true } }, async (_request, reply) => {
    reply.headers({
      'TFP-API-Version': '2.6',
      'TFP-AppName': 'Teamstage',
      'X-TFE-Version': TFE_RELEASE,
      // Which build answers: package version and commit, so nodes of a rolling upgrade can be told apart.
      'X-Teamstage-Version': BUILD_VERSION,
      'X-RateLimit-Limit': String(options.rateLimit),
    });
    return reply.code(204).send();
  });
}
