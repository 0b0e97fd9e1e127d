/**
 * A claim's decision trace: every context tried and why, the rules that
 * matched and what they changed, the keys and the target chosen, indented
 * by service level. Shared by the claim page and the graph's side panel.
 */
import type { TraceStep } from '@/server/engine/state/types';

const KIND_LABEL: Record<TraceStep['kind'], string> = {
  claim: 'claim',
  user: 'user',
  service: 'service',
  acl: 'access',
  labels: 'labels',
  context: 'context',
  bundle: 'bundle',
  keys: 'keys',
  rule: 'rule',
  target: 'target',
  instance: 'instance',
  component: 'component',
  reject: 'rejected',
  error: 'error',
};

export function DecisionTrace({ steps, testId = 'trace', indent = 22 }: { steps: readonly TraceStep[]; testId?: string; indent?: number }) {
  return (
    <ol className="trace" data-testid={testId}>
      {steps.map((s, i) => (
        <li key={i} className={`trace-step trace-${s.kind}`} style={{ marginLeft: s.depth * indent }}>
          <span className="badge">{KIND_LABEL[s.kind] ?? s.kind}</span> {s.message}
        </li>
      ))}
    </ol>
  );
}
