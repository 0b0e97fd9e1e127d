'use client';
/**
 * The object page: Monaco with the kind's schema, problems list, Save
 * (button or Ctrl/Cmd+S) and Delete. Saving sends the generation the text
 * was loaded from; if someone else saved meanwhile, the server refuses and
 * nothing is lost: the text stays in the editor.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import Link from '@/components/ui/link';
import { usePathname, useRouter } from 'next/navigation';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useTRPC } from '@/components/trpc/client';
import { modelUriFor, newObjectUri, preloadEditor, YamlEditor, type EditorProblem, type ServerMarker } from '../editor';
import { ConfirmDialog } from '../ui/confirm';
import { Alert, ErrorState, LoadingState, errorMessage } from '../ui/states';
import { objectHref } from './links';
import { claimHref, isRequestKind } from '../claims/status';
import { newObjectChoices, newObjectTemplates, templateFor } from './templates';
import { isZipFile, planImport, type ImportEntry } from './import-files';
import { IMPORT_LIMITS, readZip } from './zip';
import { RevisionPreview, useSettledText } from '../revisions/preview';
import { CapactTryIt } from '../capact/try-it';
import { readDraft, removeDraft, writeDraft, type Draft } from './editor-drafts';
import { GenerationsExplained, RelativeAge, RevisionLink, savedText, saveShortcut } from './editor-notes';

type Id = { kind: string; namespace: string; name: string };
type ObjectData = import('zod').infer<typeof import('@/server/services/policy.types').objectOutput>;
type Status = { kind: 'error' | 'success' | 'info' | 'warning'; text: string; action?: 'reload'; generation?: number; created?: Id[] } | null;

interface TrpcErrorLike {
  message: string;
  data?: { code?: string; diagnostics?: ServerMarker[] };
}

export function ObjectEditor({ id, initial, reveal, savedGeneration }: { id: Id; initial?: ObjectData; reveal?: { line: number; column?: number }; savedGeneration?: number }) {
  const trpc = useTRPC();
  // `initial`: the object as the server read it for this page, so the editor starts without asking again —
  // and does not ask at once either (fresh for a few seconds: it was read for this very request). A cached
  // copy from an earlier visit is older than that, so it is asked for again as before.
  const object = useQuery(trpc.policy.get.queryOptions(id, { refetchOnWindowFocus: false, ...(initial ? { initialData: initial, staleTime: 5_000 } : {}) }));
  // While the object's text is on its way: the editor's code and schemas too, not one after the other.
  useQuery(trpc.policy.schemas.queryOptions(undefined, { staleTime: Infinity }));
  useEffect(preloadEditor, []);
  // Bumped by "Reload latest": remounts the form with the server's text.
  const [loads, setLoads] = useState(0);
  if (object.isPending) return <LoadingState label="Loading object…" />;
  if (object.isError) return <ErrorState error={object.error} retry={() => object.refetch()} />;
  return (
    <EditorForm
      key={loads}
      id={id}
      initialText={object.data.text}
      baseGeneration={object.data.head}
      objectGeneration={object.data.generation}
      readOnlyReason={object.data.canEdit ? null : object.data.readOnlyReason}
      reveal={reveal}
      savedGeneration={savedGeneration}
      onReload={async () => {
        await object.refetch();
        setLoads((n) => n + 1);
      }}
    />
  );
}

export function NewObjectEditor({ kind: initialKind }: { kind?: string }) {
  const [chosen, setKind] = useState(initialKind);
  const [namespace, setNamespace] = useState<string>();
  const trpc = useTRPC();
  const head = useQuery(trpc.policy.head.queryOptions(undefined, { refetchOnWindowFocus: false }));
  // The kinds and their starting texts come from the kind registry, with the editor's schemas.
  const schemas = useQuery(trpc.policy.schemas.queryOptions(undefined, { staleTime: Infinity }));
  // Roles choose what is offered and place the template; without them (no database) everything is offered as written.
  const roles = useQuery(trpc.tenants.myRoles.queryOptions(undefined, { refetchOnWindowFocus: false, retry: false }));
  if (head.isPending || roles.isPending || schemas.isPending) return <LoadingState />;
  if (head.isError) return <ErrorState error={head.error} retry={() => head.refetch()} />;
  if (schemas.isError) return <ErrorState error={schemas.error} retry={() => schemas.refetch()} />;
  const templates = newObjectTemplates(schemas.data);
  // Only the kinds and namespaces this user may save (the server checks again on save).
  const choices = newObjectChoices(schemas.data, roles.data, chosen);
  const kind = choices.kind;
  const ns = choices.namespaces?.length ? (namespace && choices.namespaces.includes(namespace) ? namespace : choices.namespaces[0]) : undefined;
  return (
    <>
      {choices.none && (
        <Alert kind="info" testId="no-save-rights">
          You have no role that lets you save objects in any namespace: you may draft here, but saving is refused. A domain admin grants roles with ACL rules, or a tenant&apos;s owner makes you a member.
        </Alert>
      )}
      <EditorForm
        key={`${kind}/${ns ?? ''}`}
        kind={kind}
        kinds={choices.kinds}
        onKindChange={setKind}
        namespaces={choices.namespaces ?? undefined}
        namespace={ns}
        onNamespaceChange={setNamespace}
        initialText={templateFor(templates[kind]!, kind, roles.data, ns)}
        baseGeneration={head.data}
        onReload={() => void head.refetch()}
      />
    </>
  );
}

function EditorForm(props: {
  id?: Id;
  kind?: string;
  /** Kinds a new object may be (the kind registry's). */
  kinds?: readonly string[];
  onKindChange?: (k: string) => void;
  /** Namespaces a new object may be saved in by this user (unset: any). */
  namespaces?: readonly string[];
  namespace?: string;
  onNamespaceChange?: (ns: string) => void;
  initialText: string;
  baseGeneration: number;
  objectGeneration?: number;
  /** Set when the user may not change this object: the editor opens read-only with this on top. */
  readOnlyReason?: string | null;
  reveal?: { line: number; column?: number };
  /** Set when the page was opened by Create (`?saved=N`): the "Saved as generation N" banner carries over. */
  savedGeneration?: number;
  onReload: () => void | Promise<void>;
}) {
  const readOnly = !!props.readOnlyReason;
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const router = useRouter();
  const pathname = usePathname();
  const schemas = useQuery(trpc.policy.schemas.queryOptions(undefined, { staleTime: Infinity }));
  const [text, setText] = useState(props.initialText);
  const preview = useSettledText(props.initialText);
  const [saved, setSaved] = useState(props.initialText);
  const [base, setBase] = useState(props.baseGeneration);
  const [problems, setProblems] = useState<EditorProblem[]>([]);
  const [serverMarkers, setServerMarkers] = useState<ServerMarker[]>([]);
  const [status, setStatus] = useState<Status>(
    props.savedGeneration !== undefined ? { kind: 'success', text: savedText(props.savedGeneration), generation: props.savedGeneration } : null,
  );
  // Dismissing the carried-over banner also drops `?saved=` so a reload does not bring it back.
  const dismissStatus = () => {
    setStatus(null);
    if (props.savedGeneration !== undefined) router.replace(pathname, { scroll: false });
  };
  const [confirmDelete, setConfirmDelete] = useState(false);
  const dirty = text !== saved;
  const kind = props.id?.kind ?? props.kind ?? 'bundle';
  // The side panel holds the preview (for those who may save) and Try it (a Capact policy).
  const sidePanel = !readOnly || kind === 'policy';
  const uri = useMemo(
    () => (props.id ? modelUriFor(props.id.kind, props.id.namespace, props.id.name) : newObjectUri(kind)),
    [props.id, kind],
  );

  // Don't lose edits by closing the tab.
  useEffect(() => {
    if (!dirty) return;
    const warn = (e: BeforeUnloadEvent) => e.preventDefault();
    window.addEventListener('beforeunload', warn);
    return () => window.removeEventListener('beforeunload', warn);
  }, [dirty]);

  // Unsaved text is kept in this browser until it is saved or discarded, and
  // offered back when the page opens again (after a navigation, a crash or a
  // session expiry).
  const draftKey = `keelson:draft:${uri}`;
  // 'unknown' until read after mount (the server render has no browser storage).
  const [offer, setOffer] = useState<Draft | null | 'unknown'>('unknown');
  useEffect(() => {
    setOffer(readOnly ? null : readDraft(draftKey, props.initialText));
  }, [draftKey, readOnly, props.initialText]);
  const [shortcut, setShortcut] = useState('Ctrl+S');
  useEffect(() => setShortcut(saveShortcut()), []);
  useEffect(() => {
    // Never overwrite a draft that has not been restored or discarded yet.
    if (readOnly || offer !== null) return;
    const t = setTimeout(() => {
      if (dirty) writeDraft(draftKey, { text, base, at: Date.now() });
      else removeDraft(draftKey);
    }, 250);
    return () => clearTimeout(t);
  }, [dirty, text, base, draftKey, readOnly, offer]);

  // Leaving through an in-app link with unsaved changes asks first.
  const [leaving, setLeaving] = useState<string | null>(null);
  useEffect(() => {
    if (!dirty) return;
    const onClick = (e: MouseEvent) => {
      if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
      const a = e.target instanceof Element ? e.target.closest('a[href]') : null;
      if (!(a instanceof HTMLAnchorElement) || a.target === '_blank' || a.hasAttribute('download')) return;
      const url = new URL(a.href, window.location.href);
      if (url.origin !== window.location.origin || (url.pathname === window.location.pathname && url.search === window.location.search)) return;
      // Capture phase on the document: the link's own handler never runs.
      e.preventDefault();
      e.stopPropagation();
      setLeaving(url.pathname + url.search + url.hash);
    };
    document.addEventListener('click', onClick, true);
    return () => document.removeEventListener('click', onClick, true);
  }, [dirty]);

  const save = useMutation(trpc.policy.save.mutationOptions());
  const del = useMutation(trpc.policy.delete.mutationOptions());

  const errors = problems.filter((p) => p.severity === 'error');
  const textRef = useRef(text);
  textRef.current = text;

  const onSave = useCallback(async () => {
    if (save.isPending || readOnly) return;
    if (errors.length > 0) {
      const first = errors[0]!;
      // In a paste of several objects, the line alone does not say which one is wrong. Loaded only here: the
      // YAML parser is not worth slowing every editor's first load for.
      const { objectAtLine } = await import('./object-at-line');
      const object = objectAtLine(textRef.current, first.line);
      setStatus({
        kind: 'error',
        text: `Save refused: fix ${errors.length === 1 ? 'the problem' : `${errors.length} problems`} first — line ${first.line}${object ? ` (${object})` : ''}: ${first.message}`,
      });
      return;
    }
    const current = textRef.current;
    setStatus({ kind: 'info', text: 'Saving…' });
    try {
      const res = await save.mutateAsync({ id: props.id, text: current, baseGeneration: base });
      setServerMarkers([]);
      removeDraft(draftKey);
      setSaved(current);
      setBase(res.generation);
      await queryClient.invalidateQueries({ queryKey: trpc.policy.pathKey() });
      if (!res.changed) {
        setStatus({ kind: 'info', text: `No changes to save (generation ${res.generation}).` });
      } else {
        setStatus({ kind: 'success', text: savedText(res.generation), generation: res.generation, created: props.id ? undefined : res.objects });
      }
      // One new object opens on its own page, which shows the same banner (`?saved=`); several stay listed here, each linked.
      if (!props.id && res.objects.length === 1) router.replace(`${objectHref(res.object)}?saved=${res.generation}`);
    } catch (err) {
      const e = err as TrpcErrorLike;
      setServerMarkers(e.data?.diagnostics?.filter((d) => d.severity !== 'info') ?? []);
      setStatus({ kind: 'error', text: errorMessage(e), action: e.data?.code === 'CONFLICT' ? 'reload' : undefined });
    }
  }, [save, errors, props.id, base, queryClient, trpc, router, draftKey, readOnly]);

  // Ctrl/Cmd+S saves from anywhere on the page, not only with the editor
  // focused (the browser's own "save page" is never what is meant here).
  const onSaveRef = useRef(onSave);
  onSaveRef.current = onSave;
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (!(e.ctrlKey || e.metaKey) || e.key.toLowerCase() !== 's' || e.shiftKey || e.altKey) return;
      e.preventDefault();
      // Inside Monaco its own command has saved already.
      if (e.target instanceof Element && e.target.closest('.monaco-editor')) return;
      void onSaveRef.current();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  const onDelete = async () => {
    if (!props.id) return;
    try {
      await del.mutateAsync({ ids: [props.id], baseGeneration: base });
      await queryClient.invalidateQueries({ queryKey: trpc.policy.pathKey() });
      router.push('/objects');
    } catch (err) {
      setConfirmDelete(false);
      const e = err as TrpcErrorLike;
      setStatus({ kind: 'error', text: errorMessage(e), action: e.data?.code === 'CONFLICT' ? 'reload' : undefined });
    }
  };

  // Imported files, folders and zips replace the text (after asking, if it was edited); Create then saves every object in them at once.
  const onImport = async (input: HTMLInputElement) => {
    const picked = [...(input.files ?? [])];
    input.value = '';
    if (picked.length === 0) return;
    const size = picked.reduce((n, f) => n + f.size, 0);
    if (picked.length > IMPORT_LIMITS.files || size > IMPORT_LIMITS.bytes) {
      setStatus({ kind: 'error', text: `Nothing imported: ${picked.length} files of ${(size / 1024 / 1024).toFixed(1)} MiB — an import holds at most ${IMPORT_LIMITS.files} files and 10 MiB.` });
      return;
    }
    if (dirty && !window.confirm('Replace your changes with the imported files?')) return;
    setStatus({ kind: 'info', text: `Reading ${picked.length} file${picked.length === 1 ? '' : 's'}…` });
    const entries: ImportEntry[] = [];
    const unread: string[] = [];
    const problems: string[] = [];
    const decoder = new TextDecoder('utf-8', { fatal: true });
    for (const f of picked) {
      // A folder's files carry their path below the folder picked (its name first).
      const path = f.webkitRelativePath || f.name;
      if (isZipFile(f.name)) {
        const z = readZip(f.name, new Uint8Array(await f.arrayBuffer()));
        if (z.problem) problems.push(z.problem);
        const stem = path.replace(/\.zip$/i, '');
        entries.push(...z.entries.map((e) => ({ path: `${stem}/${e.path}`, text: e.text })));
        unread.push(...z.skipped.map((x) => `${stem}/${x}`));
        continue;
      }
      try {
        entries.push({ path, text: decoder.decode(await f.arrayBuffer()) });
      } catch {
        unread.push(`${path} (not text)`);
      }
    }
    const plan = planImport(entries, { namespace: props.namespace });
    problems.push(...plan.problems);
    const skipped = [...unread, ...plan.skipped];
    const notTaken = skipped.length ? ` Not taken (only .yaml and .yml files, and blueprint folders): ${skipped.join(', ')}.` : '';
    if (plan.text.trim() === '' || plan.text.length > IMPORT_LIMITS.bytes) {
      const why = plan.text.trim() === '' ? 'no objects in what was picked' : 'the objects are over the limit of 10 MiB';
      setStatus({ kind: 'error', text: `Nothing imported: ${why}.${problems.length ? ` ${problems.join('; ')}.` : ''}${notTaken}` });
      return;
    }
    textRef.current = plan.text;
    setText(plan.text);
    preview.replaced(plan.text);
    setServerMarkers([]);
    setStatus({
      kind: problems.length || skipped.length ? 'warning' : 'info',
      text: `Imported ${plan.taken.join(', ')}: check the problems below, then Create saves every object as one generation.${problems.length ? ` Not imported: ${problems.join('; ')}.` : ''}${notTaken}`,
    });
  };

  const title = props.id ? `${props.id.namespace}/${props.id.name}` : `New ${kind}`;
  return (
    <>
      <div className="page-head">
        <div>
          <div className="breadcrumbs">
            <Link href="/objects">Objects</Link> / {props.id ? <Link href={`/objects?kind=${props.id.kind}`}>{props.id.kind}</Link> : 'new'}
          </div>
          <h1>
            {title} {dirty && <span className="badge badge-warn">unsaved</span>}
          </h1>
          <p>
            {props.id ? (
              <>
                <span className="badge badge-kind">{props.id.kind}</span> last changed in{' '}
                <Link href={`/history?to=${props.objectGeneration}`}>generation {props.objectGeneration}</Link> · editing on top of generation{' '}
                <strong data-testid="base-generation">{base}</strong>
              </>
            ) : (
              <>Editing on top of generation {base}</>
            )}
          </p>
        </div>
        <div className="actions">
          {!props.id && (
            <label className="sr-only" htmlFor="kind-select">
              Kind
            </label>
          )}
          {!props.id && (
            <select
              id="kind-select"
              value={kind}
              onChange={(e) => {
                if (!dirty || window.confirm('Discard your changes and start a new object of another kind?')) props.onKindChange?.(e.target.value);
              }}
            >
              {(props.kinds ?? []).map((k) => (
                <option key={k} value={k}>
                  {k}
                </option>
              ))}
            </select>
          )}
          {!props.id && props.namespaces && props.namespaces.length > 0 && (
            <>
              <label className="sr-only" htmlFor="namespace-select">
                Namespace
              </label>
              <select
                id="namespace-select"
                value={props.namespace}
                onChange={(e) => {
                  if (!dirty || window.confirm('Discard your changes and start the object in another namespace?')) props.onNamespaceChange?.(e.target.value);
                }}
              >
                {props.namespaces.map((ns) => (
                  <option key={ns} value={ns}>
                    {ns}
                  </option>
                ))}
              </select>
            </>
          )}
          {!props.id && !readOnly && (
            <>
              <label className="btn" title="Load .yaml files or zips into the editor: every object in them is created as one generation">
                Import files…
                <input type="file" className="sr-only" multiple accept=".yaml,.yml,.zip" onChange={(e) => void onImport(e.currentTarget)} />
              </label>
              <label className="btn" title="Load a folder: its .yaml files, and each folder holding a blueprint.yaml as one Landscaper Blueprint">
                Import folder…
                {/* webkitdirectory: a folder picker in every browser we serve; React does not know the attribute, so it is passed as written. */}
                <input type="file" className="sr-only" multiple {...{ webkitdirectory: '' }} onChange={(e) => void onImport(e.currentTarget)} />
              </label>
            </>
          )}
          {props.id && isRequestKind(props.id.kind) && (
            <Link className="btn" href={claimHref({ ...props.id, kind: props.id.kind })}>
              {props.id.kind === 'deployment' ? 'Layout' : props.id.kind === 'installation' ? 'Phases' : 'Resolution'}
            </Link>
          )}
          {props.id && (
            <button type="button" className="btn btn-danger" onClick={() => setConfirmDelete(true)} disabled={readOnly} title={props.readOnlyReason ?? undefined}>
              Delete
            </button>
          )}
          <button type="button" className="btn btn-primary" onClick={onSave} disabled={save.isPending || readOnly} title={props.readOnlyReason ?? `Save (${shortcut})`}>
            {save.isPending ? 'Saving…' : props.id ? 'Save' : 'Create'} <kbd>{shortcut}</kbd>
          </button>
        </div>
      </div>
      {readOnly && (
        <Alert kind="info" testId="read-only">
          Read-only: {props.readOnlyReason}
        </Alert>
      )}
      {offer && offer !== 'unknown' && (
        <Alert kind="warning" testId="draft-offer">
          <span>
            You left unsaved changes here <RelativeAge at={offer.at} /> (on top of generation {offer.base}).
          </span>{' '}
          <button
            type="button"
            className="btn btn-small btn-primary"
            onClick={() => {
              textRef.current = offer.text;
              setText(offer.text);
              preview.replaced(offer.text);
              setOffer(null);
            }}
          >
            Restore them
          </button>{' '}
          <button
            type="button"
            className="btn btn-small"
            onClick={() => {
              removeDraft(draftKey);
              setOffer(null);
            }}
          >
            Discard
          </button>
        </Alert>
      )}
      {status && (
        <Alert kind={status.kind} testId="save-status">
          <span>{status.text}</span>
          {status.generation !== undefined && (
            <>
              <RevisionLink generation={status.generation} />
              <GenerationsExplained />
            </>
          )}
          {status.created && status.created.length > 1 && (
            <span data-testid="created-objects">
              {' '}
              Created {status.created.length} objects:{' '}
              {status.created.map((o, i) => (
                <span key={`${o.kind}/${o.namespace}/${o.name}`}>
                  {i > 0 && ', '}
                  <Link href={objectHref(o)}>
                    {o.kind} {o.namespace}/{o.name}
                  </Link>
                </span>
              ))}
            </span>
          )}
          {status.action === 'reload' && (
            <button
              type="button"
              className="btn btn-small"
              onClick={() => {
                if (!dirty || window.confirm('Reloading replaces your edits with the latest saved version. Continue?')) props.onReload();
              }}
            >
              Reload latest
            </button>
          )}
          {status.kind !== 'info' && (
            <button type="button" className="btn btn-small alert-dismiss" onClick={dismissStatus} aria-label="Dismiss this message" data-testid="dismiss-status">
              Dismiss
            </button>
          )}
        </Alert>
      )}
      {/* What a change would do (the preview) and, for a Capact policy, Try it sit beside the text,
          updating as you type, rather than below a full-height editor. */}
      <div className={sidePanel ? 'editor-with-side' : undefined} data-testid="editor-layout">
        <YamlEditor
          uri={uri}
          value={text}
          onChange={(t) => {
            // Save reads the ref: a click right after typing, before React renders, sends what was typed.
            textRef.current = t;
            setText(t);
            preview.typed(t);
          }}
          schemas={schemas.data}
          readOnly={readOnly}
          onSave={onSave}
          onProblems={setProblems}
          serverMarkers={serverMarkers}
          height="calc(100vh - 330px)"
          ariaLabel={`YAML of ${title}`}
          reveal={props.reveal}
        />
        {sidePanel && (
          <aside className="editor-side" aria-label="Side panel" data-testid="editor-side">
            {/* A Capact policy is there to be tried: Try it comes first. */}
            {kind === 'policy' && <CapactTryIt text={text} />}
            {!readOnly && !dirty && <p className="muted preview-hint">Edit the YAML: what your change would deploy, and who must accept it, shows here as you type.</p>}
            <RevisionPreview text={text} settled={preview.settled} enabled={!readOnly && dirty && errors.length === 0} />
          </aside>
        )}
      </div>
      <section aria-label="Problems" style={{ marginTop: 10 }}>
        <div className="toolbar">
          <h3 style={{ margin: 0 }}>
            Problems{' '}
            <span className={`badge ${errors.length ? 'badge-error' : 'badge-ok'}`} data-testid="problem-count">
              {problems.length}
            </span>
          </h3>
          <span className="hint">
            Completion: <kbd>Ctrl</kbd>+<kbd>Space</kbd> · Save: <kbd>{shortcut}</kbd>
          </span>
        </div>
        {problems.length === 0 ? (
          <p className="hint">No problems.</p>
        ) : (
          <ul className="problems" data-testid="problems">
            {problems.map((p, i) => (
              <li key={i}>
                <span className={`sev-${p.severity}`}>{p.severity}</span>
                <span className="where">
                  {p.line}:{p.column}
                </span>
                <span>{p.message}</span>
              </li>
            ))}
          </ul>
        )}
      </section>
      <ConfirmDialog
        open={leaving !== null}
        title="Leave with unsaved changes?"
        confirmLabel="Leave"
        onConfirm={() => {
          const to = leaving!;
          setLeaving(null);
          router.push(to);
        }}
        onCancel={() => setLeaving(null)}
      >
        <p>Your changes to {title} are not saved. They stay in this browser and are offered back when you open this object again.</p>
      </ConfirmDialog>
      <ConfirmDialog
        open={confirmDelete}
        title={`Delete ${props.id?.kind} ${title}?`}
        confirmLabel="Delete"
        destructive
        busy={del.isPending}
        onConfirm={onDelete}
        onCancel={() => setConfirmDelete(false)}
      >
        <p>This creates a new policy generation without the object. History keeps every earlier version.</p>
      </ConfirmDialog>
    </>
  );
}
