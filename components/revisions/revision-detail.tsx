'use client';
/**
 * One revision: what it changes (plan by namespace section, with parameter
 * diffs), what it costs and whether it fits the clusters' marks, which
 * claims it affects and why, who accepted — and, once accepted, the apply
 * progress live. Accept/Reject buttons say why when the user may not.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import Link from '@/components/ui/link';
import { useRouter } from 'next/navigation';
import { useEffect, useMemo, useRef, useState } from 'react';
import type { inferRouterOutputs } from '@trpc/server';
import { useTRPC } from '@/components/trpc/client';
import { restoreRefusal } from '@/server/engine/acl-words';
import type { AppRouter } from '@/server/api/root';
import { claimHref } from '../claims/status';
import { DiffEditor } from '../editor';
import { ConfirmDialog } from '../ui/confirm';
import { Alert, ErrorState, LoadingState, errorMessage } from '../ui/states';
import { Time } from '../ui/time';
import { carriedText, countsText, gib, money, plainMoney, quantity, statusClass, vcpu } from './format';
import { PLAN_ROWS, PlanTable } from './plan-table';

const LIVE = new Set(['accepted', 'applying']);

export function RevisionDetail({ id }: { id: number }) {
  const trpc = useTRPC();
  const rev = useQuery({
    ...trpc.revisions.get.queryOptions({ id }),
    refetchInterval: (q) => (q.state.data && LIVE.has(q.state.data.revision.status) ? 1000 : false),
  });
  if (rev.isPending) return <LoadingState label="Loading revision…" />;
  if (rev.isError) return <ErrorState error={rev.error} retry={() => rev.refetch()} />;
  return <RevisionView data={rev.data} refetch={() => void rev.refetch()} />;
}

type Data = inferRouterOutputs<AppRouter>['revisions']['get'];

function RevisionView({ data, refetch }: { data: Data; refetch: () => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const router = useRouter();
  const { revision: r, plan, planTotals, sections, steps, stepStatus, stale } = data;
  const [message, setMessage] = useState<{ kind: 'error' | 'success'; text: string } | null>(null);
  const [comments, setComments] = useState<Record<string, string>>({});
  const [confirmRollback, setConfirmRollback] = useState(false);
  /** The section whose rejection is being confirmed, and the reason typed for it. */
  const [rejecting, setRejecting] = useState<string | null>(null);
  const [reason, setReason] = useState('');
  const [selected, setSelected] = useState<string | null>(null);
  const decide = useMutation(trpc.revisions.decide.mutationOptions());
  const rollback = useMutation(trpc.revisions.rollback.mutationOptions());
  const revert = useMutation(trpc.revisions.revert.mutationOptions());
  // Rolling back and reverting rewrite others' objects: not offered to a user who may change only claims (the server checks each object).
  const myRoles = useQuery(trpc.tenants.myRoles.queryOptions(undefined, { refetchOnWindowFocus: false, retry: false }));
  const restoreWhy = (verb: string) => (myRoles.data ? restoreRefusal({ ...myRoles.data, errors: [] }, verb) : null);
  const rollbackWhy = restoreWhy('roll back');
  const revertWhy = restoreWhy('revert this change');

  const refresh = async () => {
    await queryClient.invalidateQueries({ queryKey: trpc.revisions.pathKey() });
    refetch();
  };

  const onDecide = async (namespace: string, decision: 'accept' | 'reject', comment = comments[namespace]) => {
    setMessage(null);
    try {
      const res = await decide.mutateAsync({ revisionId: r.id, namespace, decision, comment: comment?.trim() || undefined });
      setMessage({
        kind: 'success',
        text: decision === 'reject' ? `Rejected section ${namespace}: the revision is rejected.` : res.queued ? 'All sections accepted: the revision is queued for apply.' : `Accepted section ${namespace}.`,
      });
    } catch (e) {
      setMessage({ kind: 'error', text: errorMessage(e) });
    }
    await refresh();
  };

  const onReject = async () => {
    if (!rejecting || !reason.trim()) return;
    const ns = rejecting;
    setRejecting(null);
    await onDecide(ns, 'reject', reason);
  };

  const onRevert = async () => {
    setMessage(null);
    try {
      const res = await revert.mutateAsync({ revisionId: r.id });
      await queryClient.invalidateQueries({ queryKey: trpc.revisions.pathKey() });
      router.push(`/revisions/${res.revisionId}`);
    } catch (e) {
      setMessage({ kind: 'error', text: errorMessage(e) });
    }
  };

  const onRollback = async () => {
    try {
      const res = await rollback.mutateAsync({ revisionId: r.id });
      setConfirmRollback(false);
      await queryClient.invalidateQueries({ queryKey: trpc.revisions.pathKey() });
      router.push(`/revisions/${res.revisionId}`);
    } catch (e) {
      setConfirmRollback(false);
      setMessage({ kind: 'error', text: errorMessage(e) });
    }
  };

  // The plan table's first page, from what this answer carried (its actions come in section order, as pages do).
  const firstPage = useMemo(() => {
    const status = new Map(steps.map((s) => [s.key + '|' + s.action, s.status]));
    const actions = plan.actions.slice(0, PLAN_ROWS).map((a) => ({ ...a, status: status.get(a.key + '|' + a.kind) ?? null }));
    const total = planTotals.actions;
    return { of: 'actions' as const, id: r.id, offset: 0, limit: PLAN_ROWS, total, all: total, nextOffset: total > actions.length ? actions.length : null, actions };
  }, [plan, planTotals, steps, r.id]);
  // Steps past the first page are counted on the server: every status but pending has been reached.
  const progress = Object.entries(stepStatus).reduce((n, [status, count]) => (status === 'pending' ? n : n + count), 0);

  return (
    <>
      <div className="page-head">
        <div>
          <div className="breadcrumbs">
            <Link href="/revisions">Revisions</Link> / #{r.id}
          </div>
          <h1>
            Revision #{r.id}{' '}
            <span className={statusClass(r.status)} data-testid="revision-status">
              {r.status}
            </span>
          </h1>
          <p>
            From <Link href={`/history?to=${r.generation}`}>generation {r.generation}</Link> by {r.author}, <Time value={r.createdAt} /> · carries the changes of{' '}
            <span data-testid="revision-carries">{carriedText(data.carries)}</span> · against{' '}
            {r.baseRevisionId ? <Link href={`/revisions/${r.baseRevisionId}`}>revision #{r.baseRevisionId}</Link> : 'an empty deployment'}
            {r.rollbackOf && (
              <>
                {' '}
                · rolls back to <Link href={`/revisions/${r.rollbackOf}`}>#{r.rollbackOf}</Link>
              </>
            )}
          </p>
        </div>
        <div className="actions">
          <Link className="btn" href={`/graphs?view=desired&revision=${r.id}`}>
            Impact graph
          </Link>
          {r.status === 'applied' && (
            <button
              type="button"
              className="btn"
              onClick={() => setConfirmRollback(true)}
              disabled={!!rollbackWhy}
              title={rollbackWhy ?? undefined}
              aria-describedby={rollbackWhy ? 'rollback-why' : undefined}
            >
              Roll back to this
            </button>
          )}
          {r.status === 'applied' && rollbackWhy && (
            <p className="hint" id="rollback-why" data-testid="rollback-why" style={{ flexBasis: '100%', margin: 0 }}>
              {rollbackWhy}
            </p>
          )}
        </div>
      </div>
      {message && (
        <Alert kind={message.kind} testId="decision-status">
          {/* "queued for apply" is true only until the worker has finished. */}
          {message.text.endsWith('queued for apply.') && (r.status === 'applied' || r.status === 'failed') ? `All sections accepted: the revision is ${r.status}.` : message.text}
        </Alert>
      )}
      {r.status === 'rejected' && (
        <Alert kind="warning" testId="rejected-banner">
          This revision was rejected: nothing of it was applied. Its change is still the current policy
          {data.revertTo !== null ? (
            <>
              {' '}
              (generation {r.generation}), and the next change builds on it.{' '}
              <button
                type="button"
                className="btn"
                onClick={onRevert}
                disabled={revert.isPending || !!revertWhy}
                title={revertWhy ?? undefined}
                aria-describedby={revertWhy ? 'revert-why' : undefined}
                data-testid="revert-button"
              >
                {revert.isPending ? 'Reverting…' : `Revert this change (restore generation ${data.revertTo})`}
              </button>
              {revertWhy && (
                <span className="hint" id="revert-why">
                  {' '}
                  {revertWhy}
                </span>
              )}
            </>
          ) : (
            <> as far as later generations kept it; change or roll back the newest revision to undo it.</>
          )}
        </Alert>
      )}
      {stale && (
        <Alert kind="warning">
          This revision is stale: another revision was accepted after it was computed. It can no longer be accepted; the newest revision shows the current difference.
        </Alert>
      )}
      <section className="panel" aria-label="Summary">
        <div className="summary-grid">
          <div>
            <div className="muted">Changes</div>
            <strong data-testid="revision-counts">{countsText(plan.counts)}</strong>
          </div>
          <div>
            <div className="muted">Cost per month</div>
            <strong data-testid="cost-delta">{money(plan.cost.total.delta.monthly, plan.cost.currency)}</strong>{' '}
            <span className="muted">
              ({plainMoney(plan.cost.total.before.monthly, plan.cost.currency)} → {plainMoney(plan.cost.total.after.monthly, plan.cost.currency)})
            </span>
          </div>
          <div>
            <div className="muted">Quota</div>
            <strong>{plan.quota.length === 0 ? 'no marks set' : plan.quota.every((q) => q.ok) ? 'within marks' : `${plan.quota.filter((q) => !q.ok).length} over`}</strong>
          </div>
          <div>
            <div className="muted">Claims affected</div>
            <strong>{planTotals.changedClaims}</strong>
          </div>
        </div>
      </section>

      <section className="panel" aria-label="Sections">
        <h2>Sections</h2>
        {sections.length === 0 ? (
          <p className="muted">{r.status === 'no-op' ? 'Nothing to accept: this generation changes nothing deployed.' : 'No sections.'}</p>
        ) : (
          <div className="sections">
            {sections.map((s) => (
              <div key={s.namespace} className="section-card" data-testid={`section-${s.namespace}`}>
                <div className="toolbar">
                  <h3 style={{ margin: 0 }}>
                    {s.namespace} <span className={statusClass(s.status === 'accepted' ? 'applied' : s.status === 'rejected' ? 'rejected' : 'pending')}>{s.status}</span>
                    {s.overMarks && <span className="badge badge-error">over marks</span>}
                    {s.needsDomainAdmin.length > 0 && <span className="badge badge-error">needs a domain admin</span>}
                    {s.unresolvedReferences.length > 0 && <span className="badge badge-error">unresolved references</span>}
                  </h3>
                  <span className="muted">{countsText(s.counts as Record<string, number>)}</span>
                </div>
                {s.deploys && s.deploys.targets.length > 0 && (
                  <p className="muted" style={{ margin: '4px 0' }} data-testid={`deploys-${s.namespace}`}>
                    Deploys to {s.deploys.targets.map((t) => `${t.cluster} (${t.namespaces.join(', ')})`).join('; ')}
                    {s.deploys.chartRepositories.length > 0 && <> · charts from {s.deploys.chartRepositories.join(', ')}</>}
                    {s.deploys.clusterKinds.length > 0 && <> · cluster-wide kinds {s.deploys.clusterKinds.join(', ')}</>}
                    {s.deploys.otherNamespaces.length > 0 && <> · objects in {s.deploys.otherNamespaces.join(', ')}</>}
                  </p>
                )}
                {s.needsDomainAdmin.length > 0 && (
                  <div className="hint" data-testid={`reach-${s.namespace}`}>
                    Deploys beyond namespace {s.namespace}, so only a domain admin may accept it:
                    <ul style={{ margin: '2px 0' }}>
                      {s.needsDomainAdmin.map((r) => (
                        <li key={r}>{r}</li>
                      ))}
                    </ul>
                  </div>
                )}
                {s.unresolvedReferences.length > 0 && (
                  <div className="hint" data-testid={`references-${s.namespace}`}>
                    Holds references only the cluster can resolve, so nobody may accept it; write the value into the configuration or remove the reference:
                    <ul style={{ margin: '2px 0' }}>
                      {s.unresolvedReferences.map((r) => (
                        <li key={r}>{r}</li>
                      ))}
                    </ul>
                  </div>
                )}
                {s.decidedBy && (
                  <p className="muted" style={{ margin: '4px 0' }}>
                    {s.status} by {s.decidedBy}
                    {s.decidedAt && (
                      <>
                        {' '}
                        <Time value={s.decidedAt} />
                      </>
                    )}
                    {s.comment && <>: “{s.comment}”</>}
                  </p>
                )}
                {s.status === 'pending' && r.status === 'pending' && (
                  <div className="actions" style={{ marginTop: 6 }}>
                    <input
                      type="text"
                      aria-label={`Comment on section ${s.namespace}`}
                      placeholder="Comment (optional)"
                      value={comments[s.namespace] ?? ''}
                      onChange={(e) => setComments({ ...comments, [s.namespace]: e.target.value })}
                      disabled={!s.canDecide}
                      style={{ flex: 1, minWidth: 160 }}
                    />
                    <button type="button" className="btn btn-primary" disabled={!s.canDecide || decide.isPending} onClick={() => onDecide(s.namespace, 'accept')}>
                      Accept {s.namespace}
                    </button>
                    <button
                      type="button"
                      className="btn btn-danger"
                      disabled={!s.canDecide || decide.isPending}
                      onClick={() => {
                        setReason(comments[s.namespace] ?? '');
                        setRejecting(s.namespace);
                      }}
                    >
                      Reject
                    </button>
                  </div>
                )}
                {!s.canDecide && s.reason && (
                  <p className="hint" data-testid={`why-disabled-${s.namespace}`}>
                    {s.reason}
                  </p>
                )}
              </div>
            ))}
          </div>
        )}
      </section>

      {(LIVE.has(r.status) || Object.keys(stepStatus).length > 0) && (
        <section className="panel" aria-label="Apply">
          <div className="toolbar">
            <h2 style={{ margin: 0 }}>Apply</h2>
            <span className="muted" data-testid="apply-progress">
              {progress} of {planTotals.steps} steps
            </span>
          </div>
          <progress max={Math.max(planTotals.steps, 1)} value={progress} style={{ width: '100%' }} />
          <ApplyEvents id={r.id} live={LIVE.has(r.status)} />
        </section>
      )}

      <section className="panel" aria-label="Plan">
        <h2>Plan</h2>
        <PlanTable revisionId={r.id} namespaces={sections.map((s) => s.namespace)} first={firstPage} live={LIVE.has(r.status)} selected={selected} onSelect={setSelected} />
        {selected && <InstanceDiff revisionId={r.id} instanceKey={selected} onClose={() => setSelected(null)} />}
      </section>

      <section className="panel" aria-label="Cost">
        <h2>Cost and marks</h2>
        <div className="table-wrap">
          <table className="table" data-testid="cost-table">
            <thead>
              <tr>
                <th>Target</th>
                <th className="num">vCPU</th>
                <th className="num">Memory GiB</th>
                <th className="num">Storage GiB</th>
                <th className="num">Instances</th>
                <th className="num">Per month</th>
                <th className="num">Change</th>
              </tr>
            </thead>
            <tbody>
              {plan.cost.targets.map((t) => (
                <tr key={`${t.clusterNamespace}/${t.cluster}/${t.namespace}`}>
                  <td>
                    {t.cluster} / {t.namespace}
                  </td>
                  <td className="num">
                    {vcpu(t.before.cpuMillis)} → {vcpu(t.after.cpuMillis)}
                  </td>
                  <td className="num">
                    {gib(t.before.memoryBytes)} → {gib(t.after.memoryBytes)}
                  </td>
                  <td className="num">
                    {gib(t.before.storageBytes)} → {gib(t.after.storageBytes)}
                  </td>
                  <td className="num">
                    {t.before.instances} → {t.after.instances}
                  </td>
                  <td className="num">{plainMoney(t.after.monthly, plan.cost.currency)}</td>
                  <td className="num">{money(t.delta.monthly, plan.cost.currency)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        {plan.quota.length > 0 && (
          <table className="table" data-testid="quota-table" style={{ marginTop: 10 }}>
            <thead>
              <tr>
                <th>Cluster</th>
                <th>Mark</th>
                <th className="num">Limit</th>
                <th className="num">Before</th>
                <th className="num">After</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {plan.quota.map((q) => (
                <tr key={`${q.cluster}/${q.dimension}`}>
                  <td>{q.cluster}</td>
                  <td>{q.dimension}</td>
                  <td className="num">{quantity(q.mark, q.unit)}</td>
                  <td className="num">{quantity(q.before, q.unit)}</td>
                  <td className="num">{quantity(q.after, q.unit)}</td>
                  <td>{q.ok ? <span className="badge badge-ok">ok</span> : <span className="badge badge-error">over</span>}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>

      <section className="panel" aria-label="Affected claims">
        <h2>Claims whose resolution changed ({planTotals.changedClaims})</h2>
        {planTotals.changedClaims === 0 ? (
          <p className="muted">None.</p>
        ) : (
          plan.changedClaims.map((c) => <ClaimTrace key={c} claim={c} generation={r.generation} />)
        )}
        {planTotals.changedClaims > plan.changedClaims.length && (
          <p className="muted" data-testid="changed-claims-more">
            Showing the first {plan.changedClaims.length.toLocaleString('en')} of {planTotals.changedClaims.toLocaleString('en')}; the <Link href="/claims">claims list</Link> has every claim.
          </p>
        )}
      </section>

      <ConfirmDialog
        open={rejecting !== null}
        title={`Reject section ${rejecting ?? ''} of revision #${r.id}?`}
        confirmLabel="Reject revision"
        destructive
        busy={decide.isPending}
        confirmDisabled={!reason.trim()}
        onConfirm={onReject}
        onCancel={() => setRejecting(null)}
      >
        <p>Rejecting one section rejects the whole revision: nothing of it is applied. The change stays the current policy until it is reverted or changed.</p>
        <label htmlFor="reject-reason">Reason (shown with the decision)</label>
        <textarea
          id="reject-reason"
          rows={3}
          required
          value={reason}
          onChange={(e) => setReason(e.target.value)}
          style={{ width: '100%' }}
          data-testid="reject-reason"
        />
      </ConfirmDialog>
      <ConfirmDialog
        open={confirmRollback}
        title={`Roll back to revision #${r.id}?`}
        confirmLabel="Roll back"
        busy={rollback.isPending}
        onConfirm={onRollback}
        onCancel={() => setConfirmRollback(false)}
      >
        <p>
          This writes a new policy generation restoring generation {r.generation}. Like any change, it becomes a revision that must be accepted before it is
          applied.
        </p>
      </ConfirmDialog>
    </>
  );
}

function ApplyEvents({ id, live }: { id: number; live: boolean }) {
  const trpc = useTRPC();
  const events = useQuery({ ...trpc.revisions.events.queryOptions({ id }), refetchInterval: live ? 1000 : false });
  if (!events.data) return null;
  return (
    // It scrolls past a few events: a tab stop with a name, so keyboard users can scroll it too.
    <ol className="events" data-testid="apply-events" tabIndex={0} aria-label="Apply events">
      {events.data.map((e) => (
        <li key={e.id} className={`event-${e.kind}`}>
          <span className="muted">
            <Time value={e.at} />
          </span>{' '}
          {e.message}
        </li>
      ))}
    </ol>
  );
}

function InstanceDiff({ revisionId, instanceKey, onClose }: { revisionId: number; instanceKey: string; onClose: () => void }) {
  const trpc = useTRPC();
  const diff = useQuery(trpc.revisions.instanceDiff.queryOptions({ revisionId, key: instanceKey }));
  // Chosen in the plan table: bring it into view and mark it, so the click visibly lands somewhere.
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    el.scrollIntoView({ behavior: 'smooth', block: 'start' });
    el.classList.add('just-selected');
    el.focus({ preventScroll: true });
    const t = setTimeout(() => el.classList.remove('just-selected'), 1500);
    return () => clearTimeout(t);
  }, [instanceKey]);
  return (
    <div className="instance-diff" data-testid="instance-diff" ref={ref} tabIndex={-1} aria-label={`Parameter diff of ${instanceKey}`}>
      <div className="toolbar">
        <strong className="mono">{instanceKey}</strong>
        <button type="button" className="btn btn-small" onClick={onClose}>
          Close
        </button>
      </div>
      {diff.isPending ? (
        <LoadingState />
      ) : diff.isError ? (
        <ErrorState error={diff.error} />
      ) : (
        <DiffEditor original={diff.data.before} modified={diff.data.after} height={320} ariaLabel={`Parameters of ${instanceKey}, before and after`} />
      )}
    </div>
  );
}

function ClaimTrace({ claim, generation }: { claim: string; generation: number }) {
  const [open, setOpen] = useState(false);
  const [namespace, name] = claim.split('/') as [string, string];
  const trpc = useTRPC();
  const q = useQuery({ ...trpc.resolution.claim.queryOptions({ namespace, name, generation }), enabled: open });
  return (
    <details className="claim-trace" onToggle={(e) => setOpen((e.target as HTMLDetailsElement).open)}>
      {/* Nothing interactive inside <summary> (it is a control itself): the claim's link sits in the body. */}
      <summary>
        <span className="mono">{claim}</span>{' '}
        {q.data && <span className={statusClass(q.data.outcome.status === 'resolved' ? 'applied' : 'failed')}>{q.data.outcome.status}</span>}
      </summary>
      <p style={{ margin: '4px 0' }}>
        <Link href={claimHref({ namespace, name }, generation)}>Open the claim {claim}</Link>
      </p>
      {q.isPending && open && <LoadingState />}
      {q.data && (
        <ol className="trace">
          {q.data.outcome.trace.map((s, i) => (
            <li key={i} className={`trace-step trace-${s.kind}`} style={{ marginLeft: s.depth * 22 }}>
              <span className="badge">{s.kind}</span> {s.message}
            </li>
          ))}
        </ol>
      )}
    </details>
  );
}

