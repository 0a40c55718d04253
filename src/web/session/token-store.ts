/**
 * The pasted API token lives in sessionStorage only: gone when the tab closes, never in a URL (it would
 * reach logs and history), a cookie (it would be sent without the console asking) or localStorage.
 */
const KEY = 'teamstage.token';

export function readToken(): string | null {
  try {
    return window.sessionStorage.getItem(KEY);
  } catch {
    return null; // storage disabled: the user signs in again on every load
  }
}

export function saveToken(token: string): void {
  window.sessionStorage.setItem(KEY, token);
}

export function clearToken(): void {
  window.sessionStorage.removeItem(KEY);
}
