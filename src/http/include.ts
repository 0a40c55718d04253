import { Errors } from '../core/errors.js';
import { listParameter, type Query } from './querystring.js';

/**
 * Parses `include`, accepting both spellings clients use (`task_results` and `task-results`), and
 * answers 400 for anything the endpoint does not offer. Returns hyphenated names.
 */
export function parseInclude<T extends string>(query: Query, allowed: readonly T[]): Set<T> {
  const requested = listParameter(query.include).map((name) => name.replace(/_/g, '-'));
  const result = new Set<T>();
  for (const name of requested) {
    if (!(allowed as readonly string[]).includes(name)) {
      const offered = allowed.length > 0 ? allowed.join(', ') : 'nothing';
      throw Errors.invalidInclude(name, offered);
    }
    result.add(name as T);
  }
  return result;
}
