import { useLayoutEffect, useRef } from 'preact/hooks';

/**
 * The second step of a destructive action, in place of the button that asked for it: the question, the
 * action named in full ("Remove bob now") and a way back. Focus moves to the action, so a keyboard user
 * who pressed the first button is not left on a button that is gone; Escape keeps things as they are.
 * The focus moves before the question is painted (a layout effect: a plain effect runs a frame later, and a
 * quick Enter in between went nowhere).
 */
export function ConfirmAction(props: { question: string; confirmLabel: string; cancelLabel?: string; busy?: boolean; onConfirm: () => void; onCancel: () => void }) {
  const confirm = useRef<HTMLButtonElement>(null);
  useLayoutEffect(() => confirm.current?.focus(), []);
  return (
    <span
      class="confirm"
      role="group"
      aria-label={props.question}
      onKeyDown={(event) => {
        if (event.key === 'Escape') props.onCancel();
      }}
    >
      <span class="confirm-question">{props.question}</span>{' '}
      <button ref={confirm} type="button" class="danger" disabled={props.busy} onClick={props.onConfirm}>
        {props.confirmLabel}
      </button>{' '}
      <button type="button" class="secondary" onClick={props.onCancel}>
        {props.cancelLabel ?? 'Keep'}
      </button>
    </span>
  );
}
