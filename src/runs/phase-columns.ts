/** The columns of a plan or apply (the plans and applies tables have the same), as the runs' reads select them. */
export const PHASE_COLUMNS = [
  'id', 'run_id', 'status', 'status_timestamps', 'has_changes', 'resource_additions', 'resource_changes', 'resource_destructions',
  'resource_imports', 'json_upload_id', 'json_bytes', 'execution_mode', 'log_upload_id', 'log_bytes', 'agent_report', 'created_at', 'updated_at',
] as const;
