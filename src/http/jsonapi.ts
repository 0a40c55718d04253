/** Shapes of JSON:API documents, shared by every serializer. */
export interface ResourceIdentifier {
  id: string;
  type: string;
}

export interface Resource extends ResourceIdentifier {
  attributes: Record<string, unknown>;
  relationships?: Record<string, unknown>;
  links?: Record<string, string>;
}

export interface Document {
  data: Resource | Resource[] | null;
  included?: Resource[];
  meta?: Record<string, unknown>;
  links?: Record<string, string | null>;
}

export const JSONAPI_CONTENT_TYPE = 'application/vnd.api+json';

export function identifier(type: string, id: string): ResourceIdentifier {
  return { id, type };
}

/** Timestamps as go-tfe parses them: ISO 8601 in UTC ending in `Z`. Stored values already are. */
export function timestamp(value: string | null | undefined): string | null {
  return value ?? null;
}

/** Adds each resource once, in first-seen order. */
export function uniqueResources(resources: Resource[]): Resource[] {
  const seen = new Set<string>();
  return resources.filter((resource) => {
    const key = `${resource.type}/${resource.id}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** A single-resource document; `included` appears only when something was included. */
export function resourceDocument(parts: { data: Resource; included: Resource[] }): Document {
  return parts.included.length > 0 ? { data: parts.data, included: parts.included } : { data: parts.data };
}
