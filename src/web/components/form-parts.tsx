import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import type { ApiError } from '../api/api-client';
import { ConfirmAction } from './confirm-action';
import { ErrorNotice, FieldErrors } from './page-states';

/**
 * The pieces every console form is made of, so each form states only its fields and what it sends: a
 * labelled text field wired to the server's refusal of it, the outcome of the write (the refusal no field
 * took, the success line) and the submit button that says it is busy; and the two-step button of a
 * destructive action in a list row.
 */

/** Whether the server's refusal names this field (its JSON:API `source.pointer`). */
export function refuses(error: ApiError | null | undefined, field: string): boolean {
  return (error?.forField(field).length ?? 0) > 0;
}

/**
 * A `<label for>` and its input; the server's errors for `field` are shown under it, and the input points at
 * them (`aria-invalid`, `aria-describedby`, after the hint when there is one).
 */
export function TextField(props: {
  id: string;
  label: string;
  value: string;
  onValue: (value: string) => void;
  error?: ApiError | null;
  /** The attribute the server names in its refusal (`name`, `email`, …). */
  field?: string;
  /** The id of the error line; `<id>-error` when not given. */
  errorId?: string;
  hint?: ComponentChildren;
  type?: 'text' | 'email' | 'url' | 'password';
  required?: boolean;
  maxLength?: number;
  autocomplete?: string;
}) {
  const errorId = props.errorId ?? `${props.id}-error`;
  const invalid = props.field !== undefined && refuses(props.error, props.field);
  const hintId = props.hint !== undefined ? `${props.id}-hint` : undefined;
  const describedBy = [hintId, invalid ? errorId : undefined].filter(Boolean).join(' ') || undefined;
  return (
    <>
      <label for={props.id}>{props.label}</label>
      <input
        id={props.id}
        // Preact types each input type apart; every one of ours takes text.
        type={(props.type ?? 'text') as 'text'}
        required={props.required}
        maxLength={props.maxLength}
        autocomplete={props.autocomplete}
        value={props.value}
        onInput={(event) => props.onValue((event.target as HTMLInputElement).value)}
        aria-invalid={invalid ? 'true' : undefined}
        aria-describedby={describedBy}
      />
      {hintId && (
        <p id={hintId} class="muted">
          {props.hint}
        </p>
      )}
      {props.field !== undefined && <FieldErrors id={errorId} error={props.error} field={props.field} />}
    </>
  );
}

/**
 * What a write ended in, for the person who made it: a refusal that no field shows (`placed` lists the
 * fields that show their own), and the success line (`role=status`).
 */
export function ActionOutcome(props: { action: { error: ApiError | null; message: string | null }; placed?: readonly string[]; what?: string }) {
  const { error, message } = props.action;
  const placed = (props.placed ?? []).some((field) => refuses(error, field));
  return (
    <>
      {error && !placed && <ErrorNotice error={error} what={props.what} />}
      {message && (
        <p role="status" class="notice notice-ok">
          {message}
        </p>
      )}
    </>
  );
}

/** The submit button: disabled while the write runs (and while `incomplete`), saying so (`busyLabel`) when given. */
export function SubmitButton(props: { busy: boolean; busyLabel?: string; incomplete?: boolean; children: ComponentChildren }) {
  return (
    <button type="submit" disabled={props.busy || props.incomplete === true}>
      {props.busy && props.busyLabel ? props.busyLabel : props.children}
    </button>
  );
}

/**
 * A `fieldset` of checkboxes choosing any of `options` (teams to join, stages, policies…); `children` go
 * after the boxes (the server's refusal of the choice).
 */
export function CheckboxGroup<T extends string>(props: {
  legend: string;
  options: readonly { value: T; label: ComponentChildren }[];
  chosen: readonly T[];
  onChange: (chosen: T[]) => void;
  describedBy?: string;
  children?: ComponentChildren;
}) {
  const toggle = (value: T, on: boolean) => props.onChange(on ? [...props.chosen, value] : props.chosen.filter((chosen) => chosen !== value));
  return (
    <fieldset aria-describedby={props.describedBy}>
      <legend>{props.legend}</legend>
      {props.options.map((option) => (
        <label class="choice" key={option.value}>
          <input type="checkbox" checked={props.chosen.includes(option.value)} onChange={(event) => toggle(option.value, (event.target as HTMLInputElement).checked)} />
          {option.label}
        </label>
      ))}
      {props.children}
    </fieldset>
  );
}

/**
 * A destructive action in a list row: the button (`label`, named in full for screen readers by
 * `accessibleName`), and in its place once pressed the confirmation naming what goes (ConfirmAction).
 * `confirming` and the handlers come from `useRowConfirmation`: one row asks at a time.
 */
export function ConfirmedButton(props: {
  label: string;
  accessibleName: string;
  question: string;
  confirmLabel: string;
  confirming: boolean;
  busy: boolean;
  onAsk: () => void;
  onConfirm: () => void;
  onCancel: () => void;
  /** Disable the first button while the action runs (a list whose rows act one at a time). */
  disableWhileBusy?: boolean;
}) {
  if (props.confirming) {
    return <ConfirmAction question={props.question} confirmLabel={props.confirmLabel} busy={props.busy} onConfirm={props.onConfirm} onCancel={props.onCancel} />;
  }
  return (
    <button type="button" class="danger" disabled={props.disableWhileBusy ? props.busy : undefined} onClick={props.onAsk} aria-label={props.accessibleName}>
      {props.label}
    </button>
  );
}

/**
 * Which row of a list asks to confirm its destructive action (one at a time): `confirmRow(id, act)` gives
 * that row's ConfirmedButton its state and handlers; confirming closes the question and runs `act`.
 */
export function useRowConfirmation(busy: boolean) {
  const [asking, setAsking] = useState<string | null>(null);
  return (id: string, act: () => void) => ({
    confirming: asking === id,
    busy,
    onAsk: () => setAsking(id),
    onCancel: () => setAsking(null),
    onConfirm: () => {
      setAsking(null);
      act();
    },
  });
}
