/**
 * The plan JSON of the run page's plan, fetched once. The run page starts this request as soon as the run
 * document names a finished plan with changes (use-run-details.ts), in parallel with the stage requests and
 * the first render, instead of the structured view asking for it only once it is on screen: on a plan of
 * thousands of changes (megabytes of JSON) that request is most of the time to the first change shown.
 * A finished plan's JSON never changes, so one answer serves every poll. Only the latest plan is kept: a
 * large plan's parsed JSON is tens of megabytes. Import-free (test/unit loads it): it names only the parts
 * of the API client and of a phase it reads.
 */
interface Getter {
  get<T>(path: string): Promise<T>;
}

let kept: { api: Getter; planId: string; json: Promise<unknown> } | null = null;

/** The plan's JSON, or null when it has none (the no-op executor's is empty; a server without it answers 404). */
export function planJson(api: Getter, planId: string): Promise<unknown> {
  if (kept && kept.api === api && kept.planId === planId) return kept.json;
  const json: Promise<unknown> = api.get<unknown>(`/plans/${encodeURIComponent(planId)}/json-output`).catch((error: unknown) => {
    // A refusal (404: no JSON) is the plan's answer and is kept, or every poll would ask again; a dropped
    // connection or a server error is not: the next time the view opens asks again.
    const status = (error as { status?: unknown } | null)?.status;
    const refused = typeof status === 'number' && status >= 400 && status < 500;
    if (!refused && kept?.json === json) kept = null;
    return null;
  });
  kept = { api, planId, json };
  return json;
}

/** Whether the structured view shows this phase (phase-details.tsx renders it under the same condition). */
export function showsPlanChanges<P extends { type: string; attributes: { status: string; 'has-changes': boolean } }>(plan: P | undefined): plan is P {
  return plan?.type === 'plans' && plan.attributes.status === 'finished' && plan.attributes['has-changes'];
}
