'use client';
/**
 * Beside a Capact policy in the editor: pick an Interface and see which
 * Implementation it resolves to under the text as typed — the rule that
 * decided, what is injected, where outputs go, and why every other
 * Implementation lost. Nothing is saved by trying.
 */
import { useQuery } from '@tanstack/react-query';
import { useEffect, useId, useState } from 'react';
import { useTRPC } from '@/components/trpc/client';
import { Spinner } from '../ui/spinner';
import { errorMessage } from '../ui/states';

type Mode = 'documented' | 'capact-compat';

export function CapactTryIt({ text }: { text: string }) {
  const trpc = useTRPC();
  const ids = { iface: useId(), mode: useId() };
  const interfaces = useQuery(trpc.capact.interfaces.queryOptions());
  const [iface, setIface] = useState('');
  const [mode, setMode] = useState<Mode | ''>('');
  const [debounced, setDebounced] = useState(text);
  useEffect(() => {
    const t = setTimeout(() => setDebounced(text), 300);
    return () => clearTimeout(t);
  }, [text]);
  // Start from the first Interface once the Hub is known.
  useEffect(() => {
    if (!iface && interfaces.data?.length) setIface(interfaces.data[0]!.path);
  }, [iface, interfaces.data]);

  const q = useQuery({
    ...trpc.capact.tryIt.queryOptions({ interface: { path: iface || 'cap.none' }, draft: debounced, ...(mode ? { mode } : {}) }),
    enabled: iface !== '',
    placeholderData: (prev) => prev,
  });
  const r = q.data;
  const x = r?.explanation;

  return (
    <section className="panel" aria-label="Try it" data-testid="capact-try-it">
      <h2>Try it</h2>
      {interfaces.isPending ? (
        <Spinner label="reading the Hub…" />
      ) : interfaces.isError ? (
        <p className="sev-error">{errorMessage(interfaces.error)}</p>
      ) : interfaces.data.length === 0 ? (
        <p className="muted">The Hub holds no Interfaces yet: save Interface and Implementation manifests (OCF, as Capact writes them) to try this policy on them.</p>
      ) : (
        <>
          <div className="actions">
            <label htmlFor={ids.iface}>Interface</label>
            <select id={ids.iface} value={iface} onChange={(e) => setIface(e.target.value)} data-testid="try-interface">
              {interfaces.data.map((i) => (
                <option key={i.path} value={i.path}>
                  {i.path} ({i.revisions[0]})
                </option>
              ))}
            </select>
            <label htmlFor={ids.mode}>Merge</label>
            <select id={ids.mode} value={mode} onChange={(e) => setMode(e.target.value as Mode | '')}>
              <option value="">as the policy says (merge.mode)</option>
              <option value="documented">documented (higher priority wins)</option>
              <option value="capact-compat">capact-compat (Capact’s code)</option>
            </select>
            {(q.isFetching || debounced !== text) && <Spinner label="choosing…" />}
          </div>
          {q.isError ? (
            <p className="sev-error">{errorMessage(q.error)}</p>
          ) : !r ? null : r.problems.length > 0 ? (
            <div data-testid="try-problems">
              <p className="sev-error">This text cannot be tried yet:</p>
              <ul>
                {r.problems.map((p) => (
                  <li key={p}>{p}</li>
                ))}
              </ul>
            </div>
          ) : x ? (
            <div>
              <p data-testid="try-summary">
                <strong>{x.summary}</strong>
              </p>
              {x.rule && <p className="muted">Decided by {x.rule}.</p>}
              {x.errors.map((e) => (
                <pre key={e} className="sev-error">
                  {e}
                </pre>
              ))}
              {x.injections.length > 0 && (
                <>
                  <h3>Injected</h3>
                  <ul data-testid="try-injections">
                    {x.injections.map((i) => (
                      <li key={i}>{i}</li>
                    ))}
                  </ul>
                </>
              )}
              {x.backends.length > 0 && (
                <>
                  <h3>Outputs stored</h3>
                  <ul>
                    {x.backends.map((b) => (
                      <li key={b}>{b}</li>
                    ))}
                  </ul>
                </>
              )}
              {x.candidates.length > 0 && (
                <table className="table" data-testid="try-candidates">
                  <thead>
                    <tr>
                      <th>Implementation</th>
                      <th>Outcome</th>
                      <th>Why</th>
                    </tr>
                  </thead>
                  <tbody>
                    {x.candidates.map((c) => (
                      <tr key={c.implementation}>
                        <td>
                          <code>{c.implementation}</code>
                        </td>
                        <td>
                          <span className={`badge ${c.status === 'chosen' ? 'badge-ok' : ''}`}>{c.status}</span>
                        </td>
                        <td>{c.reason}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              )}
            </div>
          ) : null}
        </>
      )}
    </section>
  );
}
