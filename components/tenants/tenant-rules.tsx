'use client';
/**
 * A tenant's placement rules: the four selector lists that decide which
 * environments may take a new service (server/engine/axebow/stage.ts).
 * Edited as JSON; the draft is kept in this browser until it is saved, so
 * a reload or a refused save loses nothing. The server checks every
 * program and names the rule that cannot run.
 */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useId, useState, type FormEvent } from 'react';
import { useTRPC } from '@/components/trpc/client';
import { Alert, errorMessage } from '../ui/states';

const EXAMPLE = {
  selectEnvironmentService: [{ reason: 'production tier takes services at once', sel: ['$.environment.meta.tier', 'prod', '::eq'] }],
  selectAcceptEnvironmentService: [{ reason: 'other tiers, with an explicit acceptance', sel: [true] }],
  validateEnvironmentResource: [],
  validateEnvironmentUser: [],
};

const draftKey = (tenant: string) => `keelson:tenant-rules:${tenant}`;

export function TenantRules({ tenant, rules, canEdit }: { tenant: string; rules: Record<string, unknown>; canEdit: boolean }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const save = useMutation(trpc.tenants.setRules.mutationOptions());
  const saved = JSON.stringify(rules, null, 2);
  const [text, setText] = useState(saved);
  const [status, setStatus] = useState<{ kind: 'error' | 'success'; text: string } | null>(null);
  const id = useId();

  // A draft left in this browser wins over the stored rules until it is saved or discarded.
  useEffect(() => {
    const draft = window.localStorage.getItem(draftKey(tenant));
    if (draft !== null && draft !== saved) setText(draft);
  }, [tenant, saved]);
  const edit = (v: string) => {
    setText(v);
    if (v === saved) window.localStorage.removeItem(draftKey(tenant));
    else window.localStorage.setItem(draftKey(tenant), v);
  };

  let parsed: unknown;
  let parseError: string | null = null;
  try {
    parsed = JSON.parse(text);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) parseError = 'The rules are a JSON object of four lists.';
  } catch (e) {
    parseError = `Not JSON: ${(e as Error).message}`;
  }
  const dirty = text !== saved;

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (parseError) return;
    setStatus(null);
    try {
      await save.mutateAsync({ tenant, rules: parsed as never });
      window.localStorage.removeItem(draftKey(tenant));
      setStatus({ kind: 'success', text: 'Rules saved: they apply to services placed from now on.' });
      await qc.invalidateQueries({ queryKey: trpc.tenants.pathKey() });
    } catch (err) {
      setStatus({ kind: 'error', text: errorMessage(err) });
    }
  };

  return (
    <section className="panel" aria-label="Placement rules">
      <h2>Placement rules</h2>
      <p className="muted">
        Selectors run when a service is placed: every <code>selectEnvironmentService</code> rule true — the environment takes it at once; else every{' '}
        <code>selectAcceptEnvironmentService</code> rule true — it takes it once the revision is accepted; resources and the user are then checked by the
        two <code>validate…</code> lists. A rule is <code>{'{reason, sel}'}</code>, where <code>sel</code> is a stack program such as{' '}
        <code>["$.service.cost.vcpu", 2, "::lte"]</code>.
      </p>
      {status && (
        <Alert kind={status.kind} testId="rules-status">
          {status.text}
        </Alert>
      )}
      <form onSubmit={submit}>
        <label htmlFor={id}>Rules (JSON)</label>
        <textarea
          id={id}
          data-testid="rules-text"
          rows={Math.min(24, Math.max(8, text.split('\n').length + 1))}
          spellCheck={false}
          readOnly={!canEdit}
          value={text}
          onChange={(e) => edit(e.target.value)}
          style={{ width: '100%', fontFamily: 'var(--mono, monospace)' }}
        />
        {parseError && dirty && (
          <p className="error" role="alert" data-testid="rules-parse-error">
            {parseError}
          </p>
        )}
        {canEdit ? (
          <div className="actions">
            <button type="submit" className="btn btn-primary" disabled={!dirty || !!parseError || save.isPending}>
              {save.isPending ? 'Saving…' : 'Save rules'}
            </button>
            <button type="button" className="btn" disabled={!dirty} onClick={() => edit(saved)}>
              Discard changes
            </button>
            {Object.keys(rules).length === 0 && !dirty && (
              <button type="button" className="btn" onClick={() => edit(JSON.stringify(EXAMPLE, null, 2))}>
                Start from an example
              </button>
            )}
          </div>
        ) : (
          <p className="muted">Only the tenant&apos;s owners and admins change its rules.</p>
        )}
      </form>
    </section>
  );
}
