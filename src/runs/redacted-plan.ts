import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import chain from 'stream-chain';
import { parser } from 'stream-json';
import ignore from 'stream-json/filters/ignore.js';
import streamObject from 'stream-json/streamers/stream-object.js';

/**
 * HCP's redacted plan (`GET /plans/:id/json-output-redacted`): what terraform's and tofu's `cloud` block render
 * a remote plan from when the workspace's `structured-run-output-enabled` is true (their `jsonformat.Plan`):
 * the plan JSON's changes (`resource_changes`, `resource_drift`, `output_changes`, `relevant_attributes`,
 * its `format_version` as `plan_format_version`) and provider schemas, with every value the plan marks
 * sensitive replaced by null, so that no secret leaves in it (the renderer prints "(sensitive value)" from
 * the `*_sensitive` marks, never from the value). The parts left out (`planned_values`, `prior_state`,
 * `configuration`, `variables`) hold the values unredacted and are never assembled.
 *
 * HCP takes the provider schemas from the run's own Terraform; Teamstage's executors upload only the plan
 * JSON, so each resource type gets a schema made from the attributes its changes show, each of type
 * `dynamic` (the renderer draws the values as they are): without a schema the renderer stops.
 */
const KEPT = new Set(['format_version', 'resource_changes', 'resource_drift', 'output_changes', 'relevant_attributes']);

interface Change {
  before?: unknown;
  after?: unknown;
  before_sensitive?: unknown;
  after_sensitive?: unknown;
  [key: string]: unknown;
}
interface ResourceChange {
  mode?: string;
  type?: string;
  provider_name?: string;
  change?: Change;
  [key: string]: unknown;
}

/** The value with every part its sensitivity mark says is sensitive set to null. */
export function redact(value: unknown, sensitive: unknown): unknown {
  if (sensitive === true) return null;
  if (sensitive === null || typeof sensitive !== 'object' || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    const marks = Array.isArray(sensitive) ? sensitive : [];
    return value.map((item, index) => redact(item, marks[index]));
  }
  const marks = sensitive as Record<string, unknown>;
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, redact(item, marks[key])]));
}

function redactChange(change: Change | undefined): Change | undefined {
  if (!change || typeof change !== 'object') return change;
  return { ...change, before: redact(change.before, change.before_sensitive), after: redact(change.after, change.after_sensitive) };
}

type Schemas = Record<string, { provider?: unknown; resource_schemas: Record<string, unknown>; data_source_schemas: Record<string, unknown> }>;

/** A schema of `dynamic` attributes for the resource type of each change, per provider. */
function addSchema(schemas: Schemas, resource: ResourceChange): void {
  if (!resource.provider_name || !resource.type) return;
  const provider = (schemas[resource.provider_name] ??= { resource_schemas: {}, data_source_schemas: {} });
  const kind = resource.mode === 'data' ? provider.data_source_schemas : provider.resource_schemas;
  const block = ((kind[resource.type] as { block: { attributes: Record<string, unknown> } } | undefined) ??= { version: 0, block: { attributes: {} } } as never);
  for (const side of [resource.change?.before, resource.change?.after]) {
    if (side === null || typeof side !== 'object' || Array.isArray(side)) continue;
    for (const name of Object.keys(side)) block.block.attributes[name] ??= { type: 'dynamic', optional: true };
  }
}

/** The redacted plan of a stored plan JSON, read piece by piece. */
export async function redactedPlan(pieces: AsyncIterable<Buffer> | Iterable<Buffer>): Promise<string> {
  const kept: Record<string, unknown> = {};
  const tokens = chain([parser(), ignore({ filter: (stack) => stack.length === 1 && !KEPT.has(String(stack[0])) }), streamObject()]);
  const done = pipeline(Readable.from(pieces), tokens as unknown as NodeJS.WritableStream);
  // A broken document fails both the pipeline and the reading loop below: the loop reports it; this keeps the pipeline's copy from going unhandled.
  done.catch(() => {});
  for await (const { key, value } of tokens as AsyncIterable<{ key: string; value: unknown }>) kept[key] = value;
  await done;
  const schemas: Schemas = {};
  const resources = (key: string) =>
    (Array.isArray(kept[key]) ? (kept[key] as ResourceChange[]) : []).map((resource) => {
      addSchema(schemas, resource);
      return { ...resource, change: redactChange(resource.change) };
    });
  const outputs = Object.fromEntries(
    Object.entries((kept.output_changes ?? {}) as Record<string, Change>).map(([name, change]) => [name, redactChange(change)]),
  );
  return JSON.stringify({
    plan_format_version: kept.format_version ?? '1.2',
    resource_changes: resources('resource_changes'),
    resource_drift: resources('resource_drift'),
    output_changes: outputs,
    relevant_attributes: kept.relevant_attributes ?? [],
    provider_format_version: '1.0',
    provider_schemas: schemas,
  });
}
