import { EXIT, type ExitCode } from '../shared/exit-codes.js';

/** What `teamstage pipeline …` exits with: the table is src/shared/exit-codes.ts. */
export { EXIT, type ExitCode };

/** An error that ends the command with its exit code and a one-line message (no stack trace). */
export class PipelineError extends Error {
  constructor(
    message: string,
    readonly code: ExitCode,
  ) {
    super(message);
    this.name = 'PipelineError';
  }
}

export const usageError = (message: string) => new PipelineError(message, EXIT.usage);
export const runFailed = (message: string) => new PipelineError(message, EXIT.failed);
