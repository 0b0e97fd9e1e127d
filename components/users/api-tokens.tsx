'use client';
/**
 * The signed-in user's API tokens (for the REST API, scripts and the CLI):
 * the list — never the values, only their first characters — creating one
 * (its value shown once, with a copy button) and revoking one after a
 * confirmation.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { useTRPC } from '@/components/trpc/client';
import { ConfirmDialog } from '../ui/confirm';
import { Alert, EmptyState, ErrorState, LoadingState, errorMessage } from '../ui/states';
import { Time } from '../ui/time';

interface TokenRow {
  id: number;
  name: string;
  prefix: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  expiresAt: Date | null;
  revokedAt: Date | null;
}

const shown = (prefix: string) => `kst_${prefix}…`;

/** A date in the future or the past, as a date (the exact time on hover). */
function DateOnly({ value }: { value: Date }) {
  const d = new Date(value);
  return (
    <time dateTime={d.toISOString()} title={d.toLocaleString()}>
      {d.toLocaleDateString()}
    </time>
  );
}

function TokenState({ t }: { t: TokenRow }) {
  if (t.revokedAt) {
    return (
      <span className="badge badge-error">
        revoked <Time value={t.revokedAt} />
      </span>
    );
  }
  if (t.expiresAt && new Date(t.expiresAt).getTime() <= Date.now()) return <span className="badge badge-warn">expired</span>;
  return <span className="badge badge-ok">active</span>;
}

export function ApiTokens() {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const list = useQuery(trpc.tokens.list.queryOptions());
  const create = useMutation(trpc.tokens.create.mutationOptions());
  const revoke = useMutation(trpc.tokens.revoke.mutationOptions());
  const [name, setName] = useState('');
  const [days, setDays] = useState('');
  const [status, setStatus] = useState<{ kind: 'error' | 'success'; text: string } | null>(null);
  const [created, setCreated] = useState<{ name: string; token: string } | null>(null);
  const [copied, setCopied] = useState<'yes' | 'failed' | null>(null);
  const [confirm, setConfirm] = useState<TokenRow | null>(null);
  const valueRef = useRef<HTMLInputElement>(null);

  // The new value takes the focus (and is selected), so a keyboard user can copy it at once.
  useEffect(() => {
    if (created) {
      valueRef.current?.focus();
      valueRef.current?.select();
    }
  }, [created]);

  const refresh = () => qc.invalidateQueries({ queryKey: trpc.tokens.pathKey() });

  const daysValue = days.trim() === '' ? undefined : /^\d+$/.test(days.trim()) ? Number(days.trim()) : NaN;
  const daysInvalid = daysValue !== undefined && (!Number.isInteger(daysValue) || daysValue < 1 || daysValue > 3650);

  const onCreate = async (e: FormEvent) => {
    e.preventDefault();
    if (!name.trim() || daysInvalid) return;
    setStatus(null);
    setCopied(null);
    try {
      const t = await create.mutateAsync({ name: name.trim(), ...(daysValue !== undefined ? { expiresInDays: daysValue } : {}) });
      setCreated({ name: t.name, token: t.token });
      setName('');
      setDays('');
      await refresh();
    } catch (err) {
      setStatus({ kind: 'error', text: errorMessage(err) });
    }
  };

  const onCopy = async () => {
    if (!created) return;
    try {
      await navigator.clipboard.writeText(created.token);
      setCopied('yes');
    } catch {
      // No clipboard (an insecure origin, a denied permission): the value stays selected for Ctrl+C.
      valueRef.current?.focus();
      valueRef.current?.select();
      setCopied('failed');
    }
  };

  const onRevoke = async () => {
    if (!confirm) return;
    const t = confirm;
    try {
      await revoke.mutateAsync({ id: t.id });
      setStatus({ kind: 'success', text: `Token “${t.name}” (${shown(t.prefix)}) is revoked: it no longer works.` });
      await refresh();
    } catch (err) {
      setStatus({ kind: 'error', text: `Could not revoke “${t.name}”: ${errorMessage(err)}` });
    } finally {
      setConfirm(null);
    }
  };

  return (
    <section className="panel" aria-labelledby="api-tokens-title" data-testid="api-tokens">
      <h2 id="api-tokens-title">API tokens</h2>
      <p className="hint">
        A token acts as you, with your current rights, for the REST API (<code>Authorization: Bearer kst_…</code>) and the command line. Only its first
        characters are kept in the clear here.
      </p>
      {status && (
        <Alert kind={status.kind} testId="token-status">
          {status.text}
        </Alert>
      )}

      {created && (
        <div className="alert alert-success" role="status" data-testid="new-token">
          <p style={{ margin: '0 0 6px' }}>
            <strong>Token “{created.name}” created.</strong> Copy it now: <strong>you will not see it again.</strong>
          </p>
          <div className="actions" style={{ alignItems: 'center' }}>
            <label htmlFor="new-token-value" className="sr-only">
              New token value
            </label>
            <input
              id="new-token-value"
              ref={valueRef}
              type="text"
              readOnly
              value={created.token}
              onFocus={(e) => e.currentTarget.select()}
              className="mono"
              style={{ flex: 1, minWidth: 0 }}
              data-testid="new-token-value"
              aria-describedby="new-token-note"
            />
            <button type="button" className="btn btn-primary" onClick={onCopy}>
              {copied === 'yes' ? 'Copied' : 'Copy'}
            </button>
            <button
              type="button"
              className="btn"
              onClick={() => {
                setCreated(null);
                setCopied(null);
              }}
            >
              Done
            </button>
          </div>
          <p id="new-token-note" className="hint" style={{ margin: '6px 0 0' }} aria-live="polite">
            {copied === 'yes' ? 'Copied to the clipboard.' : copied === 'failed' ? 'The clipboard is not available: the value is selected, press Ctrl+C (⌘C).' : 'Only a hash of it is stored.'}
          </p>
        </div>
      )}

      <form onSubmit={onCreate} className="actions" style={{ alignItems: 'flex-end' }} aria-label="Create an API token">
        <div style={{ flex: 1 }}>
          <label htmlFor="token-name">Token name</label>
          <input id="token-name" type="text" value={name} onChange={(e) => setName(e.target.value)} maxLength={100} required placeholder="ci-deploy" style={{ width: '100%' }} />
        </div>
        <div>
          <label htmlFor="token-days">Expires after (days, optional)</label>
          <input
            id="token-days"
            type="text"
            inputMode="numeric"
            size={8}
            value={days}
            onChange={(e) => setDays(e.target.value)}
            placeholder="never"
            aria-invalid={daysInvalid || undefined}
            aria-describedby="token-days-hint"
          />
        </div>
        <button type="submit" className="btn btn-primary" disabled={create.isPending || !name.trim() || daysInvalid}>
          {create.isPending ? 'Creating…' : 'Create token'}
        </button>
      </form>
      <p id="token-days-hint" className="hint">
        {daysInvalid ? 'Days must be a whole number from 1 to 3650.' : 'Empty: the token does not expire (revoke it when it is no longer needed).'}
      </p>

      {list.isPending ? (
        <LoadingState label="Loading tokens…" />
      ) : list.isError ? (
        <ErrorState error={list.error} retry={() => list.refetch()} />
      ) : list.data.length === 0 ? (
        <EmptyState title="No API tokens yet">
          <p>Create one above, or run keelson login from the command line.</p>
        </EmptyState>
      ) : (
        <div className="table-wrap">
          <table className="table" data-testid="tokens-table">
            <thead>
              <tr>
                <th>Name</th>
                <th>Token</th>
                <th>Created</th>
                <th>Last used</th>
                <th>Expires</th>
                <th>State</th>
                <th>
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {list.data.map((t) => (
                <tr key={t.id} data-testid="token-row" data-token-id={t.id}>
                  <td>{t.name}</td>
                  <td>
                    <code>{shown(t.prefix)}</code>
                  </td>
                  <td>
                    <Time value={t.createdAt} />
                  </td>
                  <td>{t.lastUsedAt ? <Time value={t.lastUsedAt} /> : <span className="muted">never</span>}</td>
                  <td>{t.expiresAt ? <DateOnly value={t.expiresAt} /> : <span className="muted">never</span>}</td>
                  <td>
                    <TokenState t={t} />
                  </td>
                  <td>
                    {!t.revokedAt && (
                      <button type="button" className="btn btn-small btn-danger" onClick={() => setConfirm(t)} aria-label={`Revoke token ${t.name}`}>
                        Revoke
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}

      <ConfirmDialog
        open={confirm !== null}
        title="Revoke this token?"
        confirmLabel="Revoke token"
        destructive
        busy={revoke.isPending}
        onConfirm={onRevoke}
        onCancel={() => setConfirm(null)}
      >
        {confirm && (
          <p>
            “{confirm.name}” (<code>{shown(confirm.prefix)}</code>) stops working at once for every script and command line that uses it. This cannot be undone.
          </p>
        )}
      </ConfirmDialog>
    </section>
  );
}
