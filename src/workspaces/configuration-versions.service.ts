import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import { canQueueRuns } from '../access/workspace-permissions.js';
import { requireAccess } from '../access/require-access.js';
import type { Database } from '../db/schema.js';
import type { Executor } from '../jobs/job-queue.js';
import { nowIso } from '../core/clock.js';
import { withTimestamps } from '../core/status-timestamps.js';
import { Errors } from '../core/errors.js';
import { newId } from '../core/ids.js';
import { pageOf, type Page, type PageRequest } from '../core/page.js';
import type { Principal } from '../core/principal.js';
import { hashToken } from '../identity/token-secrets.js';
import type { ArtifactAccess } from '../access/artifact-access.js';
import { tarGzProblem } from './archive-check.js';
import type { ConfigurationVersionRow, ConfigurationVersionsRepository } from './configuration-versions.repository.js';
import type { WorkspaceContext, WorkspaceGate } from '../access/workspace-gate.js';
import type { WorkspacesRepository } from './workspaces.repository.js';
import { provenVisible, type Visible } from '../access/lookup-proofs.js';

export interface ConfigurationVersionInput {
  'auto-queue-runs'?: boolean;
  speculative?: boolean;
  /** Not the workspace's current version until a run made from it is applied. */
  provisional?: boolean;
}

/** A configuration version just created, with the one-time URL its archive is uploaded to. */
export interface CreatedConfigurationVersion {
  row: ConfigurationVersionRow;
  uploadUrl: string;
}

/** Path of the public upload route; the token in it is the only credential (clients PUT there without an auth header). */
export const UPLOAD_PATH_PREFIX = '/api/v2/configuration-versions/uploads/';

/** Queues the run of an uploaded version with `auto-queue-runs` (RunsService.queueForUpload). */
export interface UploadRunQueuer {
  queueForUpload(executor: Executor, versionId: string): Promise<void>;
}

/** Rows of this size hold an archive: memory per upload or download stays about one of them. */
const ARCHIVE_CHUNK_BYTES = 256 * 1024;

const AUTHORIZED = Symbol('authorized upload');

/** An uploaded archive kept outside memory (a spooled request body), read in pieces as often as needed. */
export interface UploadedArchive {
  size: number;
  read(pieceBytes?: number): AsyncIterable<Buffer> | Iterable<Buffer>;
}

/** Proof that `authorizeUpload` accepted the upload URL (only it can make one). */
export interface AuthorizedUpload {
  row: ConfigurationVersionRow;
  [AUTHORIZED]: true;
}

/** How many of a version's newest runs a task access token is checked against on download. */
const RUNS_CHECKED_FOR_TASK_TOKENS = 50;

/**
 * Configuration versions: a tar.gz uploaded once through an unguessable URL and kept in the database,
 * the one store every node shares; downloaded by readers and by run tasks.
 */
export class ConfigurationVersionsService {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly versions: ConfigurationVersionsRepository,
    private readonly workspaces: WorkspacesRepository,
    private readonly workspaceGate: WorkspaceGate,
    private readonly artifactAccess: ArtifactAccess,
    private readonly baseUrl: string,
    private readonly runQueuer: UploadRunQueuer,
  ) {}

  async create(principal: Principal, found: WorkspaceContext, input: ConfigurationVersionInput): Promise<CreatedConfigurationVersion> {
    const { workspace, context } = found;
    requireAccess(context.standing, 'workspace', 'upload-configuration', {});
    // 32 random bytes: as strong as an API token; only its hash is stored.
    const uploadToken = randomBytes(32).toString('base64url');
    const now = nowIso();
    const row: ConfigurationVersionRow = {
      id: newId('cv'),
      workspace_id: workspace.id,
      status: 'pending',
      status_timestamps: JSON.stringify({}),
      // HCP queues a run on upload by default; here only when the creator may queue runs (not the organization token).
      auto_queue_runs: input['auto-queue-runs'] !== false && canQueueRuns(context.standing) ? 1 : 0,
      speculative: input.speculative ? 1 : 0,
      provisional: input.provisional ? 1 : 0,
      upload_token_hash: hashToken(uploadToken),
      archive_size: null,
      created_by_user_id: principal.kind === 'user' ? principal.userId : principal.kind === 'team' ? principal.serviceAccountUserId : null,
      created_at: now,
      updated_at: now,
    };
    await this.versions.insert(row);
    return { row, uploadUrl: `${this.baseUrl}${UPLOAD_PATH_PREFIX}${uploadToken}` };
  }

  /** The workspace's versions, newest first; `found` (the `workspace` lookup) proves the caller reads the workspace, so its versions too. */
  async list(found: WorkspaceContext, page: PageRequest): Promise<Page<ConfigurationVersionRow>> {
    const { rows, total } = await this.versions.listOfWorkspace(found.workspace.id, page.offset, page.size);
    return pageOf(page, rows, total);
  }

  /** The `configuration-version` lookup: the version, in a workspace the caller may read. */
  async visible(principal: Principal, id: string): Promise<Visible<ConfigurationVersionRow>> {
    const row = await this.versions.findById(id);
    if (!row) throw Errors.configurationVersionNotFound();
    await this.workspaceGate.enter(principal, row.workspace_id, 'configuration-version');
    return provenVisible(row);
  }

  /**
   * The `configuration-upload` lookup, the credential of the PUT to the upload URL (no API token: the URL's token is it), checked before the
   * body is read: an unknown URL is 404, a used one 409. The answer is what `upload` takes.
   */
  async authorizeUpload(uploadToken: string): Promise<AuthorizedUpload> {
    const row = uploadToken.length <= 200 ? await this.versions.findByUploadTokenHash(hashToken(uploadToken)) : undefined;
    if (!row) throw Errors.uploadUrlNotFound();
    // Uploaded again (go-tfe's TestConfigurationVersionsUploadTarGzip; HCP's upload URL takes a new archive):
    // allowed until a run is made from the version, so no run's configuration ever changes under it.
    if (row.status !== 'pending' && (await this.versions.runIdsUsing(row.id, 1)).length > 0) throw Errors.configurationAlreadyUsed();
    return { row, [AUTHORIZED]: true };
  }

  /** Stores the uploaded archive, piece by piece; queues a run with auto-queue-runs after the first upload. */
  async upload(authorized: AuthorizedUpload, archive: UploadedArchive): Promise<void> {
    const { row } = authorized;
    const problem = await tarGzProblem(archive.size, archive.read());
    if (problem) throw Errors.invalidArchive(problem);
    const now = nowIso();
    const timestamps = withTimestamps(row.status_timestamps, ['uploaded'], now);
    await this.db.transaction().execute(async (trx) => {
      // The first upload moves the version from pending; a later one replaces the archive, checked again
      // under the row's lock: still no run made from it (else 409).
      const first = await this.versions.markUploaded(trx, row.id, archive.size, timestamps, now);
      if (!first) {
        if (!(await this.versions.markReuploaded(trx, row.id, archive.size, now))) throw Errors.configurationAlreadyUsed();
        await this.versions.deleteArchiveChunks(trx, row.id);
      }
      let position = 0;
      for await (const chunk of archive.read(ARCHIVE_CHUNK_BYTES)) await this.versions.insertArchiveChunk(trx, row.id, position++, chunk);
      if (first && row.auto_queue_runs === 1) await this.runQueuer.queueForUpload(trx, row.id);
    });
  }

  /**
   * HCP's archive: frees the stored archive of an uploaded version that is not the workspace's current one and that
   * no unfinished run uses; the row stays, `archived`. 409 with HCP's words otherwise.
   */
  async archive(principal: Principal, found: ConfigurationVersionRow): Promise<void> {
    const { workspace, context } = await this.workspaceGate.enter(principal, found.workspace_id, 'configuration-version');
    requireAccess(context.standing, 'configuration-version', 'archive', {});
    await this.db.transaction().execute(async (trx) => {
      const row = await this.versions.findById(found.id, trx);
      if (!row) throw Errors.configurationVersionNotFound();
      if (row.status !== 'uploaded') throw Errors.configurationArchiveRefused(`it is ${row.status}`);
      const latest = await this.versions.latestUploaded(trx, row.workspace_id);
      if (latest?.id === row.id || workspace.current_configuration_version_id === row.id) throw Errors.configurationArchiveRefused('it is current');
      const now = nowIso();
      if (!(await this.versions.markArchived(trx, row.id, withTimestamps(row.status_timestamps, ['archived'], now), now))) {
        throw Errors.configurationArchiveRefused('a run that is not finished uses it');
      }
      await this.versions.deleteArchiveChunks(trx, row.id);
    });
  }

  /** The archive, for a reader's API token or a run task's access token of a run built from it. */
  async download(token: string | undefined, id: string): Promise<{ size: number; chunks: AsyncIterable<Buffer> }> {
    const row = await this.versions.findById(id);
    const workspace = row ? await this.workspaces.findById(row.workspace_id) : undefined;
    const target = row && workspace
      ? { organizationName: workspace.organization_name, workspaceId: workspace.id, runIds: () => this.versions.runIdsUsing(row.id, RUNS_CHECKED_FOR_TASK_TOKENS) }
      : undefined;
    await this.artifactAccess.authorize(token, target, 'configuration-version');
    if (row!.status !== 'uploaded' || row!.archive_size === null) throw Errors.configurationNotUploaded();
    return { size: row!.archive_size, chunks: this.versions.archiveChunks(row!.id) };
  }
}
