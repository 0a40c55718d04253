import { useEffect, useState } from 'preact/hooks';

/**
 * History routing: the console's pages have real paths under /app (`/app/acme/workspaces/web/runs/run-…`,
 * HCP Terraform's own paths), so a `run_app_url` sent to a task service, a link in a mail or terraform's
 * "view this run" line opens the page itself. The server answers every /app/* path with the console's HTML
 * (src/http/routes/console.routes.ts); here the path is read from `location.pathname`, links are followed
 * with `history.pushState` and the back button (`popstate`) works. Old hash links (`/app/#/runs/run-…`)
 * are turned into their path when the console starts or the hash changes.
 */
export const APP_BASE = '/app';

/** Fired on window after the console changed the URL itself (pushState fires nothing). */
const NAVIGATED = 'teamstage:navigated';

/** The console path of the current URL: `/app/acme/teams` → `/acme/teams`; `/app` and `/app/` → `/`. */
export function currentPath(): string {
  return consolePath(window.location.pathname) ?? '/';
}

/** The console path of an URL path under /app, or null for a path outside the console. */
export function consolePath(pathname: string): string | null {
  if (pathname !== APP_BASE && !pathname.startsWith(`${APP_BASE}/`)) return null;
  const rest = pathname.slice(APP_BASE.length).replace(/\/+$/, '');
  return rest === '' ? '/' : rest;
}

/**
 * The path a hash link of the console before history routing meant (`#/orgs/acme/teams` → `/acme/teams`,
 * `#/runs/run-1` → `/~/runs/run-1`: a page found by id alone, which puts its full path in the URL once it
 * has read the thing). Null for any other fragment (`#main`).
 */
export function legacyHashPath(hash: string): string | null {
  const path = hash.replace(/^#/, '');
  if (!path.startsWith('/')) return null;
  const orgPage = /^\/orgs\/([^/]+)\/(teams|workspaces|tasks)\/?$/.exec(path);
  if (orgPage) return `/${orgPage[1]}/${orgPage[2]}`;
  const byId = /^\/(runs|teams|workspaces)\/([^/]+)\/?$/.exec(path);
  if (byId) return `/~/${byId[1]}/${byId[2]}`;
  return '/';
}

/** Replaces an old hash link in the address bar by its path; says whether it did. */
function migrateLegacyHash(): boolean {
  const legacy = legacyHashPath(window.location.hash);
  if (legacy === null) return false;
  window.history.replaceState(null, '', href(legacy));
  return true;
}

/** The current console path, following the console's own navigations, the back and forward buttons and old hash links. */
export function useLocationPath(): string {
  const [path, setPath] = useState(() => {
    migrateLegacyHash();
    return currentPath();
  });
  useEffect(() => {
    const onChange = () => {
      migrateLegacyHash();
      setPath(currentPath());
    };
    window.addEventListener('popstate', onChange);
    window.addEventListener('hashchange', onChange);
    window.addEventListener(NAVIGATED, onChange);
    // Effects run after the first paint: a change made before then fired no event these listeners heard.
    onChange();
    return () => {
      window.removeEventListener('popstate', onChange);
      window.removeEventListener('hashchange', onChange);
      window.removeEventListener(NAVIGATED, onChange);
    };
  }, []);
  return path;
}

/** The href of a console path, for <a href>. Segments are encoded by the caller via `link`. */
export function href(path: string): string {
  return path === '/' ? `${APP_BASE}/` : `${APP_BASE}${path}`;
}

/** Builds a console path from literal parts and values (values are URI-encoded). */
export function link(strings: TemplateStringsArray, ...values: string[]): string {
  return strings.reduce((path, part, index) => path + part + (index < values.length ? encodeURIComponent(values[index]!) : ''), '');
}

/** Opens a console path: a new history entry (the back button returns), or `replace` the current one. */
export function navigate(path: string, options: { replace?: boolean } = {}): void {
  const target = href(path);
  if (options.replace) window.history.replaceState(null, '', target);
  else {
    window.history.pushState(null, '', target);
    window.scrollTo(0, 0);
  }
  window.dispatchEvent(new Event(NAVIGATED));
}

/**
 * Puts a page's full path in the address bar once it knows it (a run opened by id learns its
 * organization and workspace from the API), without a new history entry or a new render.
 */
export function showCanonicalPath(path: string): void {
  if (currentPath() !== path) window.history.replaceState(null, '', href(path));
}

/**
 * Follows clicks on links to console pages inside the page (no reload, the sign-in kept in memory): a
 * plain left click on a same-origin /app link without a target. Modified clicks (new tab, download) and
 * links elsewhere are the browser's. Returns the function that stops it.
 */
export function interceptLinks(): () => void {
  const onClick = (event: MouseEvent) => {
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    const anchor = (event.target as Element | null)?.closest?.('a');
    if (!anchor || (anchor.target && anchor.target !== '_self') || anchor.hasAttribute('download')) return;
    const url = new URL(anchor.href, window.location.href);
    if (url.origin !== window.location.origin) return;
    const path = consolePath(url.pathname);
    if (path === null || /^\/assets\/[^/]*\./.test(path)) return;
    // A link to a fragment of this very page (the skip link) stays the browser's.
    if (url.hash && url.pathname === window.location.pathname) return;
    event.preventDefault();
    if (path !== currentPath() || url.search !== window.location.search) navigate(path);
  };
  document.addEventListener('click', onClick);
  return () => document.removeEventListener('click', onClick);
}

/** Matches `/:org/teams/:id` against a path; returns the decoded parameters or null. */
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
