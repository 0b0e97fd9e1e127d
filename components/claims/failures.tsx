'use client';

/**
 * A request's failures, from any source, as the one shape the engine reports
 * them in (Diagnostic): the words, and a link that opens the editor on the
 * object, field and line where the source knew them.
 */
import Link from '@/components/ui/link';
import { formatPath, parseObjectRef, type Diagnostic } from '@/server/engine/diagnostics';
import type { ClaimOutcome } from '@/server/engine/state';
import { objectHref } from '../objects/links';
import { Alert } from '../ui/states';

export function Failures({ outcome, testId }: { outcome: Pick<ClaimOutcome, 'status' | 'errors' | 'diagnostics'>; testId: string }) {
  // An outcome stored before every stage spoke Diagnostics has its messages only.
  const failures = outcome.diagnostics ?? outcome.errors.map((message) => ({ message }) as Diagnostic);
  return failures.map((d, i) => (
    <Alert key={i} kind={outcome.status === 'rejected' ? 'warning' : 'error'} testId={testId}>
      <span>{d.message}</span>
      <FailureSite diagnostic={d} />
    </Alert>
  ));
}

/** "In bundle main/web, components[0].code.params.image, line 12": a link that opens the editor there. */
function FailureSite({ diagnostic: d }: { diagnostic: Diagnostic }) {
  const id = d.object ? parseObjectRef(d.object) : undefined;
  if (!id) return null;
  const field = d.path && d.path.length > 0 ? formatPath(d.path) : '';
  return (
    <div className="muted" style={{ marginTop: 4 }}>
      <Link href={objectHref(id, { line: d.line, column: d.column })} data-testid="claim-error-site">
        {id.kind} {id.namespace}/{id.name}
        {field && `, ${field}`}
        {d.line !== undefined && `, line ${d.line}`}
      </Link>
    </div>
  );
}
