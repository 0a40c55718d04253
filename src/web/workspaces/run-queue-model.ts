/**
 * Where a pending run stands in its workspace's queue, as the workspace page says it: its place (the server's
 * `position-in-queue`, the runs ahead of it) and the run it waits for, the nearest older run that still holds
 * or waits for the workspace's turn (not final, not plan-only: plan-only runs take no turn). Pure and
 * import-free, so test/unit loads it directly.
 */
export interface QueuedRun {
  id: string;
  attributes: { status: string; message: string | null; 'created-at': string; 'plan-only': boolean; 'position-in-queue'?: number };
}

export interface QueuePlace {
  ahead: number;
  /** The run directly ahead, when it is on the page. */
  waitsFor: QueuedRun | null;
}

export function queuePlaces<R extends QueuedRun>(runs: readonly R[], isFinal: (status: string) => boolean): Map<string, QueuePlace> {
  const oldestFirst = [...runs].sort((a, b) => Date.parse(a.attributes['created-at']) - Date.parse(b.attributes['created-at']) || a.id.localeCompare(b.id));
  const places = new Map<string, QueuePlace>();
  const takingTurns: R[] = [];
  for (const run of oldestFirst) {
    if (run.attributes['plan-only'] || isFinal(run.attributes.status)) continue;
    if (run.attributes.status === 'pending') {
      places.set(run.id, { ahead: run.attributes['position-in-queue'] ?? takingTurns.length, waitsFor: takingTurns[takingTurns.length - 1] ?? null });
    }
    takingTurns.push(run);
  }
  return places;
}

/** "next", "1 run ahead", "3 runs ahead". */
export function placeText(place: QueuePlace): string {
  if (place.ahead === 0) return 'next in the queue';
  return `${place.ahead} ${place.ahead === 1 ? 'run' : 'runs'} ahead in the queue`;
}
