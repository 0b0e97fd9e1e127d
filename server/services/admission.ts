/**
 * The one way request text becomes policy objects: rights before work.
 *
 *   1. who is asking (anonymous: 401);
 *   2. size, from the text's length alone;
 *   3. the cheap gate: one who may manage nothing anywhere is refused (403)
 *      before a byte is parsed;
 *   4. the text read to identities only (kind, namespace, name; a claim's
 *      user) — no schema, nothing evaluated;
 *   5. the rights on each object: manage its kind in its namespace, and act
 *      for the user a claim names;
 *   6. only then the whole load: schemas, and the kinds' checks (which
 *      compile templates and, for Deployment Manager, render Jinja), run
 *      for the objects step 5 cleared and no others.
 *
 * Steps 4 and 6 run on the resolver's admission threads (server/resolver):
 * a large text or a costly check takes one of those, under their budget,
 * never the thread that answers requests. Only a small text whose kinds
 * declare no check (a service's claim) is read in place: that costs less
 * than sending it. Every path that takes policy text — saves, deletes by
 * text, previews, bundles, Capact drafts — comes through here, so a kind
 * or source added to the registry gets the same order by construction.
 */
import { hasErrors, sortDiagnostics, type Diagnostic } from '../engine/diagnostics';
import { KINDS, MAX_REQUEST_BYTES } from '../engine/model/kinds';
import { dedupe, identifyObjects, loadObjects, objectKey, type AnyLoadedObject, type IdentifyResult } from '../engine/model/validate';
import { isResolverFailure, type Resolver } from '../resolver';
import type { AdmittedObject, LoadAnswer } from '../resolver/admission-work';
import type { TryItInput, TryItResult } from '../engine/capact/try';
import type { AccessService } from './access';
import type { Actor, MaybeActor } from './actor';
import { AppError, unauthorized } from '../errors';

export type { AdmittedObject } from '../resolver/admission-work';

/** Texts up to this size are read to identities in place (a few milliseconds at most). */
const IN_PLACE_BYTES = 16 * 1024;

export interface AdmitOptions {
  /** What the writer is doing, for refusals: "change policy", "preview changes". */
  verb: string;
  /** The same for claims acting for another user: "save", "preview", "delete". */
  claimVerb: string;
  file?: string;
}

export interface Admitted {
  who: Actor;
  objects: AdmittedObject[];
  diagnostics: Diagnostic[];
}

export class PolicyAdmission {
  constructor(
    private readonly access: AccessService,
    /** Where text is read: the resolver's admission lane (in process when the resolver is inline). */
    private readonly reader: Pick<Resolver, 'run'>,
  ) {}

  /**
   * Steps 1–6 above. Diagnostics come back with the objects (a preview
   * shows them, a save refuses them: `refuseErrors`); a missing right
   * throws FORBIDDEN before anything in the text was evaluated.
   */
  async admit(actor: MaybeActor, text: string, opts: AdmitOptions): Promise<Admitted> {
    const who = await this.gate(actor, text, opts.verb);
    const ids = await this.identify(text, opts.file);
    await this.access.assertManage(who, ids.objects, opts.verb);
    await this.access.assertClaimAuthors(who, ids.objects.map((o) => ({ ...o, spec: { user: o.user } })), [], opts.claimVerb);
    const loaded = await this.load(text, opts.file, ids, new Set(ids.objects.map(objectKey)));
    return { who, objects: loaded.objects, diagnostics: sortDiagnostics(loaded.diagnostics) };
  }

  /**
   * Objects a service built from input it checked, or read through `admit`
   * earlier in the same request (an Axebow create's claim and its bundle's
   * objects): the same rights as `admit` (steps 1, 3 and 5), without
   * writing them out as YAML to read them again. Two objects of one key
   * are reported as a text's would be.
   */
  async admitObjects(actor: MaybeActor, objects: readonly AnyLoadedObject[], opts: AdmitOptions): Promise<Admitted> {
    const who = await this.gate(actor, objects.map((o) => o.text).join('\n'), opts.verb);
    await this.access.assertManage(who, objects, opts.verb);
    await this.access.assertClaimAuthors(who, objects, [], opts.claimVerb);
    const checked = dedupe([...objects]);
    return { who, objects: checked.objects, diagnostics: sortDiagnostics(checked.diagnostics) };
  }

  /**
   * One object's text with Deployment Manager files added under `imports`,
   * loaded again (its check expands the templates it now carries). For an
   * object `admit` already cleared: its identity is the same.
   */
  async withImports(text: string, file: string | undefined, cleared: { kind: string; namespace: string; name: string }, imports: Record<string, unknown>): Promise<LoadAnswer> {
    return this.onReader({ op: 'load', text, ...(file !== undefined ? { file } : {}), cleared: [objectKey(cleared)], imports });
  }

  /**
   * Capact's "Try it" on the stored Hub: anyone signed in may try the saved
   * policy; a draft or an Action policy is request text, held to the gate
   * (a role somewhere) and read — with the choice made — on the admission
   * lane.
   */
  async tryCapact(
    actor: MaybeActor,
    stored: () => Promise<readonly { kind: string; namespace: string; name: string; spec: unknown }[]>,
    input: TryItInput,
  ): Promise<TryItResult | { hubError: string }> {
    if (!actor) throw unauthorized('try Capact policies');
    if (input.draft !== undefined || input.action !== undefined) await this.gate(actor, input.draft ?? '', 'try a draft Capact policy');
    return this.onReader({ op: 'capactTry', stored: await stored(), input });
  }

  /** Steps 1–3: who, how large, and whether they may manage anything at all. */
  private async gate(actor: MaybeActor, text: string, verb: string): Promise<Actor> {
    if (!actor) throw unauthorized(verb);
    if (text.length > MAX_REQUEST_BYTES) throw new AppError('PAYLOAD_TOO_LARGE', `The request is ${text.length} bytes, over the limit of 10 MiB. Nothing was saved.`);
    return this.access.assertMayManageSomewhere(actor, verb);
  }

  private async identify(text: string, file: string | undefined): Promise<IdentifyResult> {
    if (text.length <= IN_PLACE_BYTES) return identifyObjects(text, file);
    return this.onReader({ op: 'identify', text, ...(file !== undefined ? { file } : {}) });
  }

  private async load(text: string, file: string | undefined, ids: IdentifyResult, cleared: ReadonlySet<string>): Promise<{ objects: AdmittedObject[]; diagnostics: Diagnostic[] }> {
    // Nothing to evaluate in a small text of kinds without checks (a claim): read in place. Anything else goes to a thread.
    if (text.length <= IN_PLACE_BYTES && ids.objects.every((o) => !KINDS.spec(o.kind)?.check)) return loadObjects(text, file, KINDS, { cleared });
    return this.onReader({ op: 'load', text, ...(file !== undefined ? { file } : {}), cleared: [...cleared] });
  }

  private async onReader<R extends Parameters<PolicyAdmission['reader']['run']>[0]>(req: R) {
    try {
      return await this.reader.run(req);
    } catch (e) {
      // Over the lane's time or memory budget: the text is refused, the thread replaced; the server carries on.
      if (isResolverFailure(e)) throw new AppError('LIMIT_EXCEEDED', `The server stopped reading this policy: ${e.reason}. Nothing was saved.`);
      throw e;
    }
  }
}

/** Refuse (INVALID_INPUT, every diagnostic attached for the editor's markers) when any diagnostic is an error. */
export function refuseErrors(diagnostics: Diagnostic[]): void {
  if (!hasErrors(diagnostics)) return;
  const errors = diagnostics.filter((d) => d.severity === 'error');
  const first = errors[0]!;
  const where = first.line ? `line ${first.line}, column ${first.column}: ` : '';
  throw new AppError(
    'INVALID_INPUT',
    `${errors.length === 1 ? 'The policy has an error' : `The policy has ${errors.length} errors`} — ${where}${first.message}${first.object ? ` (${first.object})` : ''}. Nothing was saved.`,
    { diagnostics },
  );
}
