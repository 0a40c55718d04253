import type { AuditTrailPrincipal, Principal } from '../core/principal.js';
import type { AuthorizedCallback } from '../delivery/callbacks.service.js';
import type { AuthorizedUpload } from '../workspaces/configuration-versions.service.js';
import type { SpooledBody } from './spooled-body.js';
import type { TaskAccess } from '../runtasks/tasks.service.js';
import type { VisibleStage } from '../taskstages/task-stages.service.js';
import type { TeamAccess } from '../teams/teams.service.js';
import type { VisibleWorkspaceTask } from '../runtasks/workspace-tasks.service.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the authentication hook; null only on public routes. */
    principal: Principal | null;
    /** Set instead of `principal` when an audit trail token calls a route with `config.auditTrailToken`. */
    auditTrailPrincipal?: AuditTrailPrincipal;
    /**
     * The team a `PATCH /teams/:id` found visible before its body was parsed (404 before 422), so the
     * handler does not look it up a second time.
     */
    visibleTeam?: TeamAccess;
    /** Likewise the run task of a `PATCH /tasks/:id` (looked up in preValidation). */
    visibleTask?: TaskAccess;
    /** Likewise the task stage of an override (looked up in preValidation). */
    visibleStage?: VisibleStage;
    /** Likewise the attachment of a `PATCH /workspaces/:id/tasks/:id` (looked up in preValidation). */
    visibleWorkspaceTask?: VisibleWorkspaceTask;
    /** A run task callback's access token, accepted in onRequest before the body is read. */
    authorizedCallback?: AuthorizedCallback;
    /** A configuration version's upload URL, accepted in onRequest before the body is read. */
    authorizedUpload?: AuthorizedUpload;
    /** The upload's body, spooled to a temporary file by the upload scope's content parser. */
    spooledUpload?: SpooledBody;
  }
  interface FastifyContextConfig {
    /** Routes that authenticate differently (ping, uploads, run task callbacks) or not at all. */
    public?: boolean;
    /** The route also takes an organization's audit trail token (the audit trail); read it with `auditTrailReaderOf`. */
    auditTrailToken?: boolean;
  }
}

export {};
