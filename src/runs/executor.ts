/**
 * Carries out the plan and apply phases of a run. Run progress calls it outside any
 * database transaction and records the outcome afterwards, so a phase may be executed again after a
 * crash: implementations must tolerate that (plan and apply of real Terraform do).
 */

export interface ExecutionContext {
  runId: string;
  workspaceId: string;
  workspaceName: string;
  organizationName: string;
  configurationVersionId: string | null;
  planOnly: boolean;
  isDestroy: boolean;
  /** The uploaded tar.gz of the run's configuration version, read from the database on demand. */
  loadConfiguration(): Promise<Buffer | null>;
}

export type PhaseOutcome =
  | {
      status: 'finished';
      hasChanges: boolean;
      resourceAdditions: number;
      resourceChanges: number;
      resourceDestructions: number;
    }
  | { status: 'errored'; message: string };

export type PlanOutcome =
  | (Extract<PhaseOutcome, { status: 'finished' }> & {
      /** The JSON plan (`terraform show -json` format), served at /plans/:id/json-output. */
      jsonOutput: string;
    })
  | Extract<PhaseOutcome, { status: 'errored' }>;

export interface RunExecutor {
  /** Shown in logs. */
  readonly name: string;
  plan(context: ExecutionContext): Promise<PlanOutcome>;
  apply(context: ExecutionContext): Promise<PhaseOutcome>;
}
