/**
 * The resolver's working state, the same in a worker thread and in process:
 * the newest generation's EngineSession (so a change the engine can absorb
 * — Aptomi: claims only — is resolved incrementally, and a claim's decision trace comes
 * without resolving everything again) plus one-off resolutions for drafts.
 *
 * The protocol is stateless from the caller's side: an incremental update or
 * an explanation names the generation it expects the session to hold, and
 * answers `null` when it holds another (a restarted worker holds none), so
 * the caller falls back to a full resolution.
 */
import { EngineSession, type EngineInput, type EngineObject, type ObjectChange } from '../engine';
import { expandDeployment, useTemplateClock, type ExpandInput, type ExpandResult, type TemplateEnv } from '../engine/dm';
import { isMainThread, workerData } from 'node:worker_threads';
import { plugTemplateSandbox } from '../dm-python';
import type { ClaimOutcome, DesiredState } from '../engine/state';
import { measure, type ProbeMeasure, type ProbeMeasured } from '../engine/plan/usage';
import { useEvaluationClock } from '../engine/host-clock';
import { admissionWork, type AdmissionAnswer, type AdmissionRequest } from './admission-work';
import { storedRead, type StoredReadAnswer, type StoredReadRequest } from './stored-work';

export type ResolverRequest =
  | { op: 'full'; generation: number; input: EngineInput }
  | ({ op: 'update'; from: number; generation: number } & ObjectChange)
  /** `update` whose state stays here: the session moves on (to weigh a new claim on it), nothing crosses back but whether it could. */
  | ({ op: 'advance'; from: number; generation: number } & ObjectChange)
  /** The warm session's state, when it holds this generation (it was advanced without its state). */
  | { op: 'state'; generation: number }
  | { op: 'explain'; generation: number; key: string }
  | { op: 'draft'; input: EngineInput }
  /** A claim's decision trace from a one-off resolution (a generation the warm session does not hold): never touches the session. */
  | { op: 'explainDraft'; key: string; input: EngineInput }
  | { op: 'probe'; generation: number; claims: readonly EngineObject[] }
  /** A probe whose state is measured here (usage, costs): only the figures cross back, not the whole state. */
  | { op: 'probeMeasure'; generation: number; claims: readonly EngineObject[]; measure: ProbeMeasure }
  | { op: 'dmExpand'; input: ExpandInput; env: TemplateEnv; validateSchema?: boolean }
  /** Request text, read on the admission lane (./admission-work.ts). */
  | AdmissionRequest
  /** Reads that evaluate the stored policy (./stored-work.ts). */
  | StoredReadRequest;

export type ResolverAnswer<R extends ResolverRequest> = R extends AdmissionRequest
  ? AdmissionAnswer<R>
  : R extends StoredReadRequest
  ? StoredReadAnswer<R>
  : R extends { op: 'full' | 'draft' }
  ? DesiredState
  : R extends { op: 'update' | 'probe' | 'state' }
    ? DesiredState | null
    : R extends { op: 'advance' }
    ? boolean
    : R extends { op: 'probeMeasure' }
      ? ProbeMeasured | null
      : R extends { op: 'dmExpand' }
        ? ExpandResult
        : { outcome: ClaimOutcome | undefined } | null;

// Deployment Manager's templates, Jinja and Python, run in the sandbox (server/dm-python) from a resolver thread,
// never from the thread that answers HTTP: this module is imported there too (InlineResolver), and a check it runs
// there leaves the templates for the resolution (deferred) rather than wait for an interpreter.
if (!isMainThread) plugTemplateSandbox();
// A pool's thread is told each unit's time (ResolverOptions.unitMs, KEELSON_UNIT_TIMEOUT_S); 5 s otherwise.
const unitMs = (!isMainThread && (workerData as { unitMs?: number } | null)?.unitMs) || 5000;
// And its Jinja templates have that time per deployment on this thread's clock (the engine reads none): far more
// than any real one needs, far less than a resolution's limit.
useTemplateClock(() => performance.now(), unitMs);
// The same for each Aptomi claim, Landscaper root installation, Capact choice and placement (engine/host-clock.ts): a
// hostile one fails alone, as its own error, long before the resolution's limit would end every one of them.
useEvaluationClock(() => performance.now(), unitMs);

const keyOf = (o: { kind: string; namespace: string; name: string }) => `${o.kind}/${o.namespace}/${o.name}`;

export class SessionResolver {
  /** The warm session, and the keys of the objects it holds (a probe may only add new ones). */
  private current: { generation: number; session: EngineSession; keys: Set<string> } | undefined;

  handle(req: ResolverRequest): DesiredState | ExpandResult | ProbeMeasured | { outcome: ClaimOutcome | undefined } | boolean | null | ReturnType<typeof admissionWork> | ReturnType<typeof storedRead> {
    switch (req.op) {
      case 'identify':
      case 'load':
      case 'capactTry':
        return admissionWork(req);
      case 'landscaperScopes':
      case 'capactInterfaces':
      case 'placement':
        return storedRead(req);
      case 'full':
        return this.full(req.generation, req.input).state();
      case 'update':
        return this.advance(req) ? this.current!.session.state() : null;
      case 'advance':
        return this.advance(req);
      case 'state':
        return this.current?.generation === req.generation ? this.current.session.state() : null;
      case 'probe':
        return this.probe(req.generation, req.claims);
      case 'probeMeasure': {
        const state = this.probe(req.generation, req.claims);
        return state && measure(state, req.measure);
      }
      case 'explain':
        // The warm session's only; another generation's trace is an explainDraft.
        return this.current?.generation === req.generation ? { outcome: this.current.session.explain(req.key) } : null;
      case 'draft':
        return new EngineSession(req.input, { trace: false }).state();
      case 'explainDraft':
        return { outcome: new EngineSession(req.input, { trace: false }).explain(req.key) };
      case 'dmExpand':
        return expandDeployment(req.input, req.env, { validateSchema: req.validateSchema });
    }
  }

  /** Move the warm session from generation `from` to `generation`; false (and the session forgotten) when it cannot. */
  private advance(req: { from: number; generation: number } & ObjectChange): boolean {
    const cur = this.current;
    if (cur?.generation !== req.from) return false;
    // A change the engine could not absorb leaves the session behind: forget it.
    if (!cur.session.absorb({ upserts: req.upserts, deletes: req.deletes, ...(req.deployedClaims ? { deployedClaims: req.deployedClaims } : {}) })) {
      this.current = undefined;
      return false;
    }
    cur.generation = req.generation;
    for (const d of req.deletes) cur.keys.delete(keyOf(d));
    for (const u of req.upserts) cur.keys.add(keyOf(u));
    return true;
  }

  /**
   * What the warm session's generation would resolve to with some new
   * claims added — a service being placed — without resolving the rest of
   * the policy again: the claims go in, the state is read, and they come
   * out again, leaving the session as it was. Null (the caller resolves a
   * draft instead) when the session holds another generation, or a claim is
   * not new, or the engine could not take them in place.
   */
  private probe(generation: number, claims: readonly EngineObject[]): DesiredState | null {
    const cur = this.current;
    if (cur?.generation !== generation) return null;
    if (claims.length === 0 || !claims.every((c) => c.kind === 'claim' && !cur.keys.has(keyOf(c)))) return null;
    const state = cur.session.update({ upserts: claims, deletes: [] });
    const restored = state !== null && cur.session.absorb({ upserts: [], deletes: claims.map((c) => ({ kind: c.kind, namespace: c.namespace, name: c.name })) });
    // Half-way (taken in, not taken out) the session matches no generation: forget it.
    if (!restored) this.current = undefined;
    return state;
  }

  private full(generation: number, input: EngineInput): EngineSession {
    const session = new EngineSession(input, { trace: false });
    // Only the newest generation is worth keeping warm.
    if (!this.current || this.current.generation <= generation) this.current = { generation, session, keys: new Set(input.objects.map(keyOf)) };
    return session;
  }
}
