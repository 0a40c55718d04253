import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import { nowIso } from '../core/clock.js';
import { ApiError, Errors } from '../core/errors.js';
import { newId } from '../core/ids.js';
import type { Principal } from '../core/principal.js';
import { withTimestamps } from '../core/status-timestamps.js';
import type { Database } from '../db/schema.js';
import { hashToken } from '../identity/token-secrets.js';
import { provenVisible, type Visible } from '../access/lookup-proofs.js';
import type { Found, PoliciesService } from './policies.service.js';
import type { PolicySetRow } from './policies.repository.js';
import { PolicyArchiveProblem, readPolicyArchive, type PolicyArchiveLimits } from './policy-archive.js';
import { declaredPolicies } from './policy-set-layout.js';
import type { CheckedPolicy, PolicySetVersionRow, PolicySetVersionsRepository } from './policy-set-versions.repository.js';

/** Path of the public upload route; the token in it is the only credential (go-tfe PUTs there without an auth header). */
export const POLICY_UPLOAD_PATH_PREFIX = '/api/v2/policy-set-versions/uploads/';

/** A version just created, with the one-time URL its archive is uploaded to (HCP's `links.upload`). */
export interface CreatedPolicySetVersion {
  row: PolicySetVersionRow;
  uploadUrl: string;
}

/** An uploaded archive kept outside memory (a spooled request body), read in pieces. */
export interface UploadedPolicyArchive {
  read(pieceBytes?: number): AsyncIterable<Buffer>;
}

const AUTHORIZED = Symbol('authorized policy upload');

/** Proof that `authorizeUpload` accepted the upload URL (only it can make one). */
export interface AuthorizedPolicyUpload {
  row: PolicySetVersionRow;
  [AUTHORIZED]: true;
}

/**
 * HCP's policy set versions: a manager of the set creates one (`pending`, with an upload URL); the tar.gz PUT there
 * is read as a stream (policy-archive.ts), its declared policies (policy-set-layout.ts) pass the same checks as the
 * policies API, and in one transaction they become the set's policies (`ready`); an archive that fails any check
 * leaves the set as it was and the version `errored` with why. The archive itself is not kept.
 */
export class PolicySetVersionsService {
  /** The archive bounds: per file the policy size limit; in all 32 of them, inflated (and so compressed). */
  readonly archiveLimits: PolicyArchiveLimits;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly versions: PolicySetVersionsRepository,
    private readonly policies: PoliciesService,
    private readonly baseUrl: string,
  ) {
    const maxBytes = policies.limits.maxBytes;
    this.archiveLimits = { maxEntries: 1000, maxFileBytes: maxBytes, maxInflatedBytes: 32 * maxBytes };
  }

  async create(found: Visible<Found<PolicySetRow>>): Promise<CreatedPolicySetVersion> {
    this.policies.requireSetWrite(found.context);
    // 32 random bytes: as strong as an API token; only its hash is stored.
    const uploadToken = randomBytes(32).toString('base64url');
    const now = nowIso();
    const row: PolicySetVersionRow = {
      id: newId('polsetver'), policy_set_id: found.row.id, status: 'pending', status_timestamps: withTimestamps(null, ['pending'], now),
      error: null, upload_token_hash: hashToken(uploadToken), upload_token: uploadToken, created_at: now, updated_at: now,
    };
    await this.versions.insert(row);
    return { row, uploadUrl: this.uploadUrlOf(uploadToken) };
  }

  /**
   * The `policy-set-version` lookup: the version, of a set the caller may read (else 404), with its upload URL
   * while it is pending and the caller may manage the set (HCP shows `links.upload` on reads; go-tfe uploads
   * to the link it read). A member who only reads the set never sees it: it would let them replace its policies.
   */
  async visible(principal: Principal, id: string): Promise<Visible<{ row: PolicySetVersionRow; uploadUrl?: string }>> {
    const row = await this.versions.findById(id);
    if (!row) throw Errors.policySetVersionNotFound();
    const set = await this.policies.visibleSet(principal, row.policy_set_id);
    if (row.status !== 'pending' || row.upload_token === null || !this.policies.maySetWrite(set.context)) return provenVisible({ row });
    return provenVisible({ row, uploadUrl: this.uploadUrlOf(row.upload_token) });
  }

  private uploadUrlOf(uploadToken: string): string {
    return `${this.baseUrl}${POLICY_UPLOAD_PATH_PREFIX}${uploadToken}`;
  }

  /** The `policy-set-version-upload` lookup, before the body is read: an unknown URL is 404, a used one 409. */
  async authorizeUpload(uploadToken: string): Promise<AuthorizedPolicyUpload> {
    const row = uploadToken.length <= 200 ? await this.versions.findByUploadTokenHash(hashToken(uploadToken)) : undefined;
    if (!row) throw Errors.uploadUrlNotFound();
    if (row.status !== 'pending') throw Errors.policySetVersionAlreadyUploaded();
    return { row, [AUTHORIZED]: true };
  }

  /** Reads the archive and makes its policies the set's (`ready`), or records why not (`errored`, and a 422 with it). */
  async upload(authorized: AuthorizedPolicyUpload, archive: UploadedPolicyArchive): Promise<void> {
    const { row } = authorized;
    const set = await this.policies.setById(row.policy_set_id);
    if (!set) throw Errors.policySetNotFound();
    let problem: string | undefined;
    let checked: CheckedPolicy[] = [];
    try {
      const files = await readPolicyArchive(archive.read(), this.archiveLimits);
      checked = await this.checked(set, declaredPolicies(set.kind, files));
    } catch (error) {
      if (!(error instanceof PolicyArchiveProblem)) throw error;
      problem = error.message;
    }
    const now = nowIso();
    if (problem === undefined) {
      const applied = await this.db.transaction().execute(async (trx) => {
        const why = await this.versions.replacePolicies(trx, set, checked, this.policies.limits.policiesPerOrganization, now);
        if (why !== undefined) return why;
        if (!(await this.versions.settle(trx, row.id, 'ready', withTimestamps(row.status_timestamps, ['ready'], now), null, now))) throw Errors.policySetVersionAlreadyUploaded();
        return undefined;
      });
      if (applied === undefined) return;
      problem = applied;
    }
    if (!(await this.versions.settle(this.db, row.id, 'errored', withTimestamps(row.status_timestamps, ['errored'], now), problem, now))) throw Errors.policySetVersionAlreadyUploaded();
    throw Errors.policySetVersionErrored(problem);
  }

  /** Each OPA policy's Rego through the policies API's own check; a Sentinel text is kept as it is (never run). */
  private async checked(set: PolicySetRow, declared: ReturnType<typeof declaredPolicies>): Promise<CheckedPolicy[]> {
    const out: CheckedPolicy[] = [];
    for (const policy of declared) {
      if (set.kind !== 'opa') {
        out.push({ ...policy, regoVersion: null });
        continue;
      }
      try {
        out.push({ ...policy, regoVersion: await this.policies.checkedRegoVersion(policy.text, set.organization_name) });
      } catch (error) {
        if (error instanceof ApiError && error.status === 422) throw new PolicyArchiveProblem(`policy ${policy.name}: ${error.message}`);
        throw error;
      }
    }
    return out;
  }
}
