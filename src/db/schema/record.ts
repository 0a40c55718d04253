/** A run's record and the organization audit trail. One area of the database schema; src/db/schema.ts gathers them. */
import type { Generated } from 'kysely';

/** A run's comment (migration 015): HCP's `comments`. */
export interface CommentsTable {
  id: string;
  run_id: string;
  body: string;
  author_user_id: string | null;
  author_name: string | null;
  /** The run event that carries it. */
  run_event_id: string | null;
  created_at: string;
}

/** HCP's run events (migration 015); `seq` orders them. */
export interface RunEventsTable {
  seq: Generated<number>;
  id: string;
  run_id: string;
  action: string;
  description: string;
  actor_user_id: string | null;
  actor_name: string | null;
  comment_id: string | null;
  created_at: string;
}

/** HCP's organization audit trail (migration 023); `seq` orders it, `meta` is a JSON object. */
export interface AuditTrailTable {
  seq: Generated<number>;
  id: string;
  organization_name: string;
  timestamp: string;
  accessor_id: string | null;
  actor_name: string;
  actor_kind: string;
  request_id: string | null;
  resource_id: string;
  resource_type: string;
  action: string;
  meta: string | null;
}
