/**
 * The kind registry: every kind of every source (see ./sources), looked up
 * without regard to case. Validation, storage, the editor's JSON Schemas and
 * the "new object" menus ask here; a kind is declared once, in its source's
 * file. `KINDS` reads the built-in sources; a `KindRegistry` over another
 * list (a test's toy source) behaves the same.
 */
import { z } from 'zod';
import { SOURCE_MODELS, type Kind, type KindSchemas } from './sources';
import { SYSTEM_NAMESPACE } from './sources/aptomi';
import { EXAMPLE_KEYWORD, SYSTEM_ONLY_KEYWORD, type KindSpec, type SourceModel } from './sources/types';

export * from './sources/aptomi';
export { SOURCE_MODELS, type Kind, type ObjectOfKind } from './sources';
export type { KindSpec, SourceModel } from './sources/types';

/** Size limits (bytes). */
export const MAX_OBJECT_BYTES = 1024 * 1024;
export const MAX_REQUEST_BYTES = 10 * 1024 * 1024;

export class KindRegistry {
  private readonly byKind = new Map<string, { source: SourceModel; spec: KindSpec }>();
  /** Every kind, sorted. */
  readonly kinds: readonly string[];

  constructor(readonly sources: readonly SourceModel[]) {
    for (const source of sources) {
      for (const [kind, spec] of Object.entries(source.kinds)) {
        const k = kind.toLowerCase();
        const prior = this.byKind.get(k);
        // Two sources may not share a kind name: a stored object's kind must say which source reads it.
        if (prior) throw new Error(`kind "${k}" is declared by both ${prior.source.name} and ${source.name}`);
        this.byKind.set(k, { source, spec });
      }
    }
    this.kinds = [...this.byKind.keys()].sort();
  }

  /** The canonical (lower-case) kind, or undefined when no source declares it. */
  normalise(kind: string): string | undefined {
    const k = kind.toLowerCase();
    return this.byKind.has(k) ? k : undefined;
  }

  spec(kind: string): KindSpec | undefined {
    return this.byKind.get(kind.toLowerCase())?.spec;
  }

  sourceOfKind(kind: string): SourceModel | undefined {
    return this.byKind.get(kind.toLowerCase())?.source;
  }

  /** The source whose envelope a parsed document is written in (undefined: a foreign document, e.g. a Kubernetes manifest). */
  sourceOfDocument(doc: Readonly<Record<string, unknown>>): SourceModel | undefined {
    return this.sources.find((s) => s.recognises(doc));
  }

  isSystemOnly(kind: string): boolean {
    return this.spec(kind)?.systemOnly === true;
  }

  description(kind: string): string {
    return this.spec(kind)?.description ?? '';
  }

  /** JSON Schema (draft-07) of one kind, for monaco-yaml. */
  jsonSchema(kind: string): Record<string, unknown> {
    const spec = this.spec(kind);
    if (!spec) throw new Error(`unknown kind "${kind}"`);
    const schema = z.toJSONSchema(spec.schema, { target: 'draft-7', io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
    const props = schema.properties as Record<string, Record<string, unknown>> | undefined;
    // The editor should steer towards the canonical lower-case kind.
    if (props?.kind) props.kind = { type: 'string', enum: [kind, ...(spec.kindNames ?? [])], description: spec.description };
    if (spec.systemOnly) {
      const md = props?.metadata as { properties?: Record<string, Record<string, unknown>> } | undefined;
      if (md?.properties?.namespace) md.properties.namespace = { type: 'string', enum: [SYSTEM_NAMESPACE] };
      schema[SYSTEM_ONLY_KEYWORD] = true;
    }
    schema.title = `Keelson ${kind}`;
    // The console's "New object" starts from this text (the schemas are what the browser gets of the registry).
    schema[EXAMPLE_KEYWORD] = spec.example;
    return schema;
  }
}

/** The built-in sources' kinds. */
export const KINDS = new KindRegistry(SOURCE_MODELS);

export const KNOWN_KINDS = KINDS.kinds as readonly Kind[];
export const SYSTEM_ONLY_KINDS: ReadonlySet<Kind> = new Set(KNOWN_KINDS.filter((k) => KINDS.isSystemOnly(k)));
export const KIND_DESCRIPTIONS = Object.fromEntries(KNOWN_KINDS.map((k) => [k, KINDS.description(k)])) as Record<Kind, string>;

/** Each kind's schema, typed (tests and generators parse with them). */
export const KIND_SCHEMAS = Object.fromEntries(KNOWN_KINDS.map((k) => [k, KINDS.spec(k)!.schema])) as KindSchemas;

export function normaliseKind(kind: string): Kind | undefined {
  return KINDS.normalise(kind) as Kind | undefined;
}

/** JSON Schema (draft-07) of one kind, for monaco-yaml. */
export function jsonSchemaForKind(kind: Kind): Record<string, unknown> {
  return KINDS.jsonSchema(kind);
}

export type PolicyObject = { [K in Kind]: import('./sources').ObjectOfKind[K] & { kind: K } }[Kind];
