/**
 * What `teamstage pipeline …` exits with, so a CI script can branch on it (docs/pipeline.md, "Gate your pipeline",
 * examples/pipeline/gate.sh). 3 is its own code because the run is not lost: a person decides (override or
 * discard), and `teamstage pipeline wait` picks the run up again afterwards. Dependency-free.
 */
export const EXIT = {
  /** The run may proceed (or, for the finishing commands, finished as it should). */
  proceed: 0,
  /** The run failed: errored, canceled, discarded, a stage failed or errored, or it cannot do what was asked. */
  failed: 1,
  /** Bad arguments or environment, an unexpected answer from the server, or no answer in time. */
  usage: 2,
  /** A task stage awaits an override: a person decides. */
  awaitingOverride: 3,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];
