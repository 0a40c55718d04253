/**
 * Query strings as clients send them: brackets raw or percent-encoded (`page%5Bsize%5D`), commas raw or
 * encoded (`a%2Cb`). URLSearchParams decodes both, so `page[size]` is always the key the routes read.
 * A repeated key keeps its first value; a flat string map is all the JSON:API parameters need.
 */
export function parseQueryString(raw: string): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [key, value] of new URLSearchParams(raw)) {
    if (!(key in result)) result[key] = value;
  }
  return result;
}

export type Query = Record<string, string | undefined>;

/** A comma-separated list parameter, trimmed, without empty parts. */
export function listParameter(value: string | undefined): string[] {
  if (value === undefined) return [];
  return value.split(',').map((part) => part.trim()).filter((part) => part !== '');
}
