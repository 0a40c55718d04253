import { useEffect, useState } from 'preact/hooks';

/**
 * Hash routing (#/teams/team-abc): the server serves one index.html at /app and never needs to know the
 * console's paths, a reload or a shared link always works, and no deep link can reach the API's 404 handler.
 */
export function currentPath(): string {
  const hash = window.location.hash.replace(/^#/, '');
  return hash.startsWith('/') ? hash : '/';
}

export function useHashPath(): string {
  const [path, setPath] = useState(currentPath);
  useEffect(() => {
    const onChange = () => setPath(currentPath());
    window.addEventListener('hashchange', onChange);
    // Effects run after the first paint: a hash changed before then fired no event this listener heard.
    onChange();
    return () => window.removeEventListener('hashchange', onChange);
  }, []);
  return path;
}

/** The href of a console path, for <a href>. Segments are encoded by the caller via `link`. */
export function href(path: string): string {
  return `#${path}`;
}

/** Builds a console path from literal parts and values (values are URI-encoded). */
export function link(strings: TemplateStringsArray, ...values: string[]): string {
  return strings.reduce((path, part, index) => path + part + (index < values.length ? encodeURIComponent(values[index]!) : ''), '');
}

export function navigate(path: string): void {
  window.location.hash = path;
}

/** Matches `/teams/:id` against a path; returns the decoded parameters or null. */
export function matchPath(pattern: string, path: string): Record<string, string> | null {
  const patternParts = pattern.split('/').filter(Boolean);
  const pathParts = path.split('?')[0]!.split('/').filter(Boolean);
  if (patternParts.length !== pathParts.length) return null;
  const params: Record<string, string> = {};
  for (let index = 0; index < patternParts.length; index++) {
    const expected = patternParts[index]!;
    const actual = pathParts[index]!;
    if (expected.startsWith(':')) {
      try {
        params[expected.slice(1)] = decodeURIComponent(actual);
      } catch {
        return null;
      }
    } else if (expected !== actual) return null;
  }
  return params;
}
