/**
 * The resource counts of an apply, read from what `terraform apply` (or `tofu apply`) printed, so the
 * pipeline's report carries them (docs/agent-protocol.md: `resource-additions` … in the apply's report):
 * - the human output's last line, `Apply complete! Resources: [N imported, ]N added, N changed, N destroyed.`
 * - or, with `-json`, the `change_summary` message of the apply (`changes.add`, `change`, `remove`, `import`).
 * Undefined when the log says neither (the server then reads what it can from the log itself).
 */
export interface ApplyCounts {
  'resource-additions': number;
  'resource-changes': number;
  'resource-destructions': number;
  'resource-imports': number;
}

const HUMAN = /Apply complete! Resources: (?:(\d+) imported, )?(\d+) added, (\d+) changed, (\d+) destroyed\./g;

export function applyCountsOf(log: string): ApplyCounts | undefined {
  let counts: ApplyCounts | undefined;
  for (const match of log.matchAll(HUMAN)) {
    counts = {
      'resource-additions': Number(match[2]),
      'resource-changes': Number(match[3]),
      'resource-destructions': Number(match[4]),
      'resource-imports': Number(match[1] ?? 0),
    };
  }
  if (counts) return counts;
  for (const line of log.split('\n')) {
    if (!line.includes('"change_summary"')) continue;
    let message: any;
    try {
      message = JSON.parse(line);
    } catch {
      continue;
    }
    const changes = message?.type === 'change_summary' ? message.changes : undefined;
    if (!changes || changes.operation !== 'apply') continue;
    const whole = (value: unknown) => (Number.isInteger(value) && (value as number) >= 0 ? (value as number) : 0);
    counts = {
      'resource-additions': whole(changes.add),
      'resource-changes': whole(changes.change),
      'resource-destructions': whole(changes.remove),
      'resource-imports': whole(changes.import),
    };
  }
  return counts;
}
