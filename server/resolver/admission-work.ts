/**
 * What the admission lane's threads do (server/services/admission.ts):
 * request text read to identities, then — once the writer's rights on them
 * are known — to objects, with their kinds' checks (which compile
 * templates and, for Deployment Manager, render Jinja); and Capact's "Try
 * it". The same functions answer in process when the resolver is inline.
 */
import { parseDocument } from 'yaml';
import { parseYamlObjects, type ParseResult } from '../engine/model/source';
import { identifyParsed, loadObjects, loadParsed, type AnyLoadedObject, type IdentifyResult } from '../engine/model/validate';
import type { Diagnostic } from '../engine/diagnostics';
import { tryCapact, type TryItInput, type TryItResult } from '../engine/capact/try';

/** A loaded object; one that crossed threads has no `locate` (a function over the parse tree, which stays behind). */
export type AdmittedObject = AnyLoadedObject;

export interface LoadAnswer {
  objects: AdmittedObject[];
  diagnostics: Diagnostic[];
  /** The text as loaded (with `imports` added, when asked). */
  text: string;
}

export type AdmissionRequest =
  | { op: 'identify'; text: string; file?: string }
  /**
   * Load `text`, running the checks of the objects in `cleared` only
   * (`kind/namespace/name`). With `imports`: one object's text gains these
   * entries under `imports` first (Deployment Manager templates fetched by URL).
   */
  | { op: 'load'; text: string; file?: string; cleared: readonly string[]; imports?: Record<string, unknown> }
  | { op: 'capactTry'; stored: readonly { kind: string; namespace: string; name: string; spec: unknown }[]; input: TryItInput };

export type AdmissionAnswer<R extends AdmissionRequest> = R extends { op: 'identify' } ? IdentifyResult : R extends { op: 'load' } ? LoadAnswer : TryItResult | { hubError: string };

const OPS: ReadonlySet<string> = new Set<AdmissionRequest['op']>(['identify', 'load', 'capactTry']);

export function isAdmissionRequest(req: { op: string }): req is AdmissionRequest {
  return OPS.has(req.op);
}

/**
 * The parse of the text last identified here, kept for its load (which
 * follows once the rights are checked): a 10 MiB text is parsed once, not
 * twice. Dropped by that load, or replaced by the next identify.
 */
let identified: { text: string; file: string | undefined; parsed: ParseResult } | undefined;

export function admissionWork(req: AdmissionRequest): IdentifyResult | LoadAnswer | TryItResult | { hubError: string } {
  switch (req.op) {
    case 'identify': {
      const parsed = parseYamlObjects(req.text, req.file);
      identified = { text: req.text, file: req.file, parsed };
      return identifyParsed(parsed);
    }
    case 'load': {
      const kept = identified && !req.imports && identified.file === req.file && identified.text === req.text ? identified.parsed : undefined;
      identified = undefined;
      const text = req.imports ? withImports(req.text, req.imports) : req.text;
      const cleared = { cleared: new Set(req.cleared) };
      const r = kept ? loadParsed(kept, undefined, cleared) : loadObjects(text, req.file, undefined, cleared);
      return { objects: r.objects.map(({ locate: _locate, ...o }) => o as AdmittedObject), diagnostics: r.diagnostics, text };
    }
    case 'capactTry':
      return tryCapact(req.stored, req.input);
  }
}

/** An object's text with entries added under `imports` (what is stored is what expands). */
function withImports(text: string, imports: Record<string, unknown>): string {
  const doc = parseDocument(text);
  for (const [k, v] of Object.entries(imports)) doc.setIn(['imports', k], doc.createNode(v));
  return doc.toString({ lineWidth: 0 });
}
