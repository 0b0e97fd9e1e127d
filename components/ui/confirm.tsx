'use client';
import { useEffect, useRef, type ReactNode } from 'react';

/**
 * A modal confirmation using <dialog>: focus moves into it, Escape cancels,
 * and the confirming button is not the default focus for destructive actions.
 */
export function ConfirmDialog(props: {
  open: boolean;
  title: string;
  children?: ReactNode;
  confirmLabel: string;
  destructive?: boolean;
  busy?: boolean;
  /** The confirming button stays disabled (e.g. until a required reason is given). */
  confirmDisabled?: boolean;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (props.open && !d.open) d.showModal();
    if (!props.open && d.open) d.close();
  }, [props.open]);
  return (
    <dialog ref={ref} className="dialog" onCancel={(e) => { e.preventDefault(); props.onCancel(); }} aria-labelledby="confirm-title">
      <h2 id="confirm-title">{props.title}</h2>
      <div className="dialog-body">{props.children}</div>
      <div className="dialog-actions">
        <button type="button" className="btn" onClick={props.onCancel} autoFocus>
          Cancel
        </button>
        <button
          type="button"
          className={`btn ${props.destructive ? 'btn-danger' : 'btn-primary'}`}
          onClick={props.onConfirm}
          disabled={props.busy || props.confirmDisabled}
        >
          {props.busy ? 'Working…' : props.confirmLabel}
        </button>
      </div>
    </dialog>
  );
}
