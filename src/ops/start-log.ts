/**
 * Info lines a process writes before its app's logger exists (migrations applied, the schema reached), in
 * pino's JSON shape (level 30 is info) so log collectors read them like every other line. Silent when
 * LOG_LEVEL hides info.
 */
export function startLog(logLevel: string): (msg: string, fields: Record<string, unknown>) => void {
  if (!['info', 'debug', 'trace'].includes(logLevel)) return () => {};
  return (msg, fields) => process.stdout.write(`${JSON.stringify({ level: 30, time: Date.now(), msg, ...fields })}\n`);
}
