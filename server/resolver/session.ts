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
import { EngineSession, type EngineInput, type ObjectChange } from '../engine';
import { expandDeployment, usePythonRunner, type ExpandInput, type ExpandResult, type TemplateEnv } from '../engine/dm';
import { pythonSandbox } from '../dm-python';
import type { ClaimOutcome, DesiredState } from '../engine/state';

export type ResolverRequest =
  | { op: 'full'; generation: number; input: EngineInput }
  | ({ op: 'update'; from: number; generation: number } & ObjectChange)
  | { op: 'explain'; generation: number; key: string; input?: EngineInput }
  | { op: 'draft'; input: EngineInput }
  | { op: 'dmExpand'; input: ExpandInput; env: TemplateEnv; validateSchema?: boolean };

export type ResolverAnswer<R extends ResolverRequest> = R extends { op: 'full' | 'draft' }
  ? DesiredState
  : R extends { op: 'update' }
    ? DesiredState | null
    : R extends { op: 'dmExpand' }
      ? ExpandResult
      : { outcome: ClaimOutcome | undefined } | null;

// Deployment Manager's Python templates run in this thread's sandbox (server/dm-python): a resolver thread, never the HTTP thread in production.
usePythonRunner((source, context, modules) => pythonSandbox().run(source, context, modules));

export class SessionResolver {
  private current: { generation: number; session: EngineSession } | undefined;

  handle(req: ResolverRequest): DesiredState | ExpandResult | { outcome: ClaimOutcome | undefined } | null {
    switch (req.op) {
      case 'full':
        return this.full(req.generation, req.input).state();
      case 'update': {
        if (this.current?.generation !== req.from) return null;
        const state = this.current.session.update({ upserts: req.upserts, deletes: req.deletes });
        // A change the engine could not absorb leaves the session behind: forget it.
        if (!state) this.current = undefined;
        else this.current.generation = req.generation;
        return state;
      }
      case 'explain': {
        let session = this.current?.generation === req.generation ? this.current.session : undefined;
        if (!session && req.input) session = this.full(req.generation, req.input);
        return session ? { outcome: session.explain(req.key) } : null;
      }
      case 'draft':
        return new EngineSession(req.input, { trace: false }).state();
      case 'dmExpand':
        return expandDeployment(req.input, req.env, { validateSchema: req.validateSchema });
    }
  }

  private full(generation: number, input: EngineInput): EngineSession {
    const session = new EngineSession(input, { trace: false });
    // Only the newest generation is worth keeping warm.
    if (!this.current || this.current.generation <= generation) this.current = { generation, session };
    return session;
  }
}
