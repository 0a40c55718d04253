/** Outbound run task requests. One area of the database schema; src/db/schema.ts gathers them. */

/** One outbound run task request (every attempt is recorded, not only the last). */
export interface DeliveryAttemptsTable {
  id: string;
  task_result_id: string;
  attempt: number;
  url: string;
  started_at: string;
  finished_at: string | null;
  outcome: 'accepted' | 'rejected' | 'network_error' | null;
  http_status: number | null;
  error: string | null;
  duration_ms: number | null;
}

/** Hashes of the per-result access tokens sent with each attempt. */
export interface TaskResultAccessTokensTable {
  token_hash: string;
  task_result_id: string;
  run_id: string;
  created_at: string;
}
