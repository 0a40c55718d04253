/**
 * The per-result access token of the run task protocol authorizes downloading its run's
 * configuration version and plan JSON until the result is final. The task stage side owns those
 * tokens; the download routes ask through this port after a normal API token did not authenticate.
 */
export interface TaskAccessTokens {
  /** True when `token` is a live access token of a result of run `runId`. */
  authorizeDownload(token: string, runId: string): Promise<boolean>;
}
