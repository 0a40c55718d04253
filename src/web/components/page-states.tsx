import type { ComponentChildren } from 'preact';
import type { ApiError } from '../api/api-client';
import type { Loaded } from '../api/use-api';

/** Renders a fetch's states the same way on every page: a polite loading line, the error, or the content. */
export function Loader<T>(props: { result: Loaded<T>; what: string; children: (data: T) => ComponentChildren }) {
  const { result } = props;
  if (result.state === 'loading') return <p role="status" class="muted">Loading {props.what}…</p>;
  if (result.state === 'error') return <ErrorNotice error={result.error} what={props.what} />;
  return <>{props.children(result.data)}</>;
}

/**
 * A refused request. A 404 never says whether the thing exists: the API answers 404 for both missing and
 * hidden resources, so neither does the console.
 */
export function ErrorNotice(props: { error: ApiError; what?: string }) {
  const { error } = props;
  if (error.isNotFound) {
    return (
      <div role="alert" class="notice notice-error">
        <strong>{props.what ? `${capitalize(props.what)}: not` : 'Not'} found or not visible to you.</strong>
      </div>
    );
  }
  return (
    <div role="alert" class="notice notice-error">
      <strong>{error.status === 403 ? 'Not allowed' : error.status === 0 ? 'No answer' : `Error ${error.status}`}:</strong>{' '}
      {error.message}
    </div>
  );
}

/** A list with nothing in it says so, and what to do next. */
export function EmptyState(props: { children: ComponentChildren }) {
  return <p class="empty">{props.children}</p>;
}

/** The server's errors for one field, shown under it (the control points here with aria-describedby). */
export function FieldErrors(props: { id: string; error?: ApiError | null; field: string }) {
  const errors = props.error?.forField(props.field) ?? [];
  if (errors.length === 0) return null;
  return (
    <p id={props.id} class="field-error" role="alert">
      {errors.map((error) => error.detail ?? error.title).join('; ')}
    </p>
  );
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
