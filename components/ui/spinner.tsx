export function Spinner({ label = 'Loading…' }: { label?: string }) {
  return (
    <span className="spinner" role="status" aria-live="polite">
      <span className="spinner-dot" aria-hidden />
      <span>{label}</span>
    </span>
  );
}
