'use client';
/**
 * Object browser: facets by kind and namespace with counts, search, and a
 * table of objects. Filters live in the URL so views can be shared.
 */
import { useQuery } from '@tanstack/react-query';
import Link from '@/components/ui/link';
import { usePathname, useRouter, useSearchParams } from 'next/navigation';
import { useEffect, useState } from 'react';
import { useTRPC } from '@/components/trpc/client';
import { preloadEditorWhenIdle } from '../editor';
import { EmptyState, ErrorState, LoadingState } from '../ui/states';
import { objectHref } from './links';

export function ObjectBrowser() {
  const trpc = useTRPC();
  const params = useSearchParams();
  const router = useRouter();
  const pathname = usePathname();
  const kind = params.get('kind') ?? undefined;
  const namespace = params.get('namespace') ?? undefined;
  const q = params.get('q') ?? '';
  const [search, setSearch] = useState(q);

  const setParam = (key: string, value: string | undefined) => {
    const next = new URLSearchParams(params.toString());
    if (value) next.set(key, value);
    else next.delete(key);
    router.replace(`${pathname}?${next.toString()}`, { scroll: false });
  };

  // Debounce typing into the URL.
  useEffect(() => {
    const t = setTimeout(() => {
      if (search !== q) setParam('q', search || undefined);
    }, 200);
    return () => clearTimeout(t);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [search]);

  const list = useQuery(trpc.policy.list.queryOptions({ kind, namespace, search: q || undefined }));
  // Most visits go on to open an object: have the editor's code ready by then — once the list is on
  // screen, so that parsing Monaco never delays the list itself (it did, by a second under load).
  const listed = list.isSuccess;
  useEffect(() => (listed ? preloadEditorWhenIdle() : undefined), [listed]);

  return (
    <>
      <div className="page-head">
        <div>
          <h1>Objects</h1>
          <p>
            Policy at generation{' '}
            <strong data-testid="head-generation">{list.data ? list.data.generation : '…'}</strong>
            {list.data && <> · {list.data.counts.total} objects</>}
          </p>
        </div>
        <div className="actions">
          <input
            type="search"
            placeholder="Search kind/namespace/name"
            aria-label="Search objects"
            value={search}
            onChange={(e) => setSearch(e.target.value)}
            style={{ width: 260 }}
          />
          <Link className="btn btn-primary" href={`/objects/new${kind ? `?kind=${kind}` : ''}`}>
            New object
          </Link>
        </div>
      </div>
      {list.isPending ? (
        <LoadingState label="Loading objects…" />
      ) : list.isError ? (
        <ErrorState error={list.error} retry={() => list.refetch()} />
      ) : (
        <div className="grid-2">
          <aside className="panel" aria-label="Filters">
            <div className="facet-title">Kind</div>
            <div className="facets">
              <button type="button" className="facet" aria-pressed={!kind} onClick={() => setParam('kind', undefined)}>
                <span>All kinds</span>
                <span className="count">{list.data.counts.total}</span>
              </button>
              {Object.entries(list.data.counts.byKind)
                .sort()
                .map(([k, n]) => (
                  <button key={k} type="button" className="facet" aria-pressed={kind === k} onClick={() => setParam('kind', kind === k ? undefined : k)}>
                    <span>{k}</span>
                    <span className="count">{n}</span>
                  </button>
                ))}
            </div>
            <div className="facet-title">Namespace</div>
            <div className="facets">
              <button type="button" className="facet" aria-pressed={!namespace} onClick={() => setParam('namespace', undefined)}>
                <span>All namespaces</span>
              </button>
              {Object.entries(list.data.counts.byNamespace)
                .sort()
                .map(([ns, n]) => (
                  <button key={ns} type="button" className="facet" aria-pressed={namespace === ns} onClick={() => setParam('namespace', namespace === ns ? undefined : ns)}>
                    <span>{ns}</span>
                    <span className="count">{n}</span>
                  </button>
                ))}
            </div>
          </aside>
          <section aria-label="Objects">
            {list.data.objects.length === 0 ? (
              list.data.counts.total === 0 ? (
                <EmptyState title="No policy yet">
                  <p>
                    Create your first object, or apply a folder with <code>keelson apply</code>.
                  </p>
                  <Link className="btn btn-primary" href="/objects/new">
                    New object
                  </Link>
                </EmptyState>
              ) : (
                <EmptyState title="Nothing matches these filters" />
              )
            ) : (
              <div className="table-wrap">
                <table className="table" data-testid="objects-table">
                  <thead>
                    <tr>
                      <th>Kind</th>
                      <th>Namespace</th>
                      <th>Name</th>
                      <th className="num">Changed in</th>
                    </tr>
                  </thead>
                  <tbody>
                    {list.data.objects.map((o) => (
                      <tr key={`${o.kind}/${o.namespace}/${o.name}`}>
                        <td>
                          <span className="badge badge-kind">{o.kind}</span>
                        </td>
                        <td>{o.namespace}</td>
                        <td>
                          <Link href={objectHref(o)}>{o.name}</Link>
                        </td>
                        <td className="num">
                          <Link href={`/history?to=${o.generation}`} title="See this generation">
                            #{o.generation}
                          </Link>
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
          </section>
        </div>
      )}
    </>
  );
}
