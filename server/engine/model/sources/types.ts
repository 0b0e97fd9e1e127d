/**
 * What a source of policy (Aptomi, Capact, Landscaper, Deployment Manager, or
 * a test's toy source) declares about its objects: how its documents are
 * recognised, how an object is identified, and one entry per kind with the
 * schema that validates it. Validation, storage, the editor's JSON Schemas
 * and the "new object" menus read these declarations; adding a kind is one
 * entry in its source's `kinds`.
 */
import type { z } from 'zod';
import type { Diagnostic, SourcePos } from '../../diagnostics';
import type { SecretAudience } from '../../state/types';

/** An object that passed its kind's schema, before source-specific checks. */
export interface CheckedObject {
  kind: string;
  namespace: string;
  name: string;
  spec: unknown;
  file?: string;
  pos: SourcePos;
  locate?: (path: readonly PropertyKey[], opts?: { key?: boolean; inner?: { line?: number; column?: number } }) => SourcePos;
}

export interface KindSpec<S extends z.ZodType = z.ZodType> {
  /** Validates (and normalises) one object of the kind, envelope included. */
  schema: S;
  /** One line for object browsers and "new object" menus. */
  description: string;
  /** Starting YAML for "New object": valid as is, easy to adapt (with `namespace: main` where the kind is namespaced). */
  example: string;
  /** Other spellings its source writes the kind in (OCF's `Interface`), offered by the editor beside the canonical one. */
  kindNames?: readonly string[];
  /** Objects of the kind live only in the `system` namespace (clusters, ACL rules). */
  systemOnly?: boolean;
  /** Checks a schema cannot express (templates compile, no dependency loops); pure. */
  check?: (o: CheckedObject) => Diagnostic[];
  /**
   * Which fields hold credentials, and who may see them whole. Every read
   * of an object of the kind (and of what is rendered from it) is redacted
   * from this alone; a kind whose schema has a credential-shaped field and
   * no declaration fails the registry test (credentials.test.ts).
   */
  credentials?: CredentialDeclaration;
}

export interface CredentialDeclaration {
  /**
   * Paths from the document's root (envelope included) to the fields that
   * hold credentials; `*` stands for any key or index. Everything below a
   * path is secret, wherever else it is repeated (an alias, a comment).
   */
  fields: readonly (readonly string[])[];
  audience: SecretAudience;
  /** What the fields are, for the placeholder a reader sees: "cluster credentials". */
  what: string;
}

/** Where an object's identity sits in a document of this source. */
export interface Identity {
  kind?: string;
  namespace?: string;
  name?: string;
}

export interface SourceModel<Kinds extends Record<string, KindSpec> = Record<string, KindSpec>> {
  /** Stable name (`aptomi`, `capact`…): the provenance of its instances. */
  name: string;
  /** For messages: "Aptomi", "Gardener Landscaper"… */
  title: string;
  kinds: Kinds;
  /** Whether a parsed document is written in this source's envelope (apiVersion, ocfVersion…). */
  recognises(doc: Readonly<Record<string, unknown>>): boolean;
  /** The kind, namespace and name of a document, read from the source's envelope. */
  identify(doc: Readonly<Record<string, unknown>>): Identity;
  /**
   * Set while the source's stage is still to come: its documents are
   * recognised (and named in a warning) instead of passing for another
   * source's or being skipped as foreign.
   */
  unsupported?: string;
}

/** JSON Schema keyword carrying a kind's starting YAML to the console ("New object"). */
export const EXAMPLE_KEYWORD = 'x-keelson-example';
/** JSON Schema keyword marking a system-only kind, so the console offers it only to those who may save in `system`. */
export const SYSTEM_ONLY_KEYWORD = 'x-keelson-system-only';

/** Typed identity helper: keeps the literal kind names of `kinds`. */
export function defineSource<K extends Record<string, KindSpec>>(s: SourceModel<K>): SourceModel<K> {
  return s;
}

/** `metadata.namespace` / `metadata.name`, the envelope of Aptomi and Keelson objects. */
export function metadataIdentity(doc: Readonly<Record<string, unknown>>): Identity {
  const md = (doc.metadata ?? {}) as Record<string, unknown>;
  return {
    kind: typeof doc.kind === 'string' ? doc.kind : undefined,
    namespace: typeof md.namespace === 'string' ? md.namespace : undefined,
    name: typeof md.name === 'string' ? md.name : undefined,
  };
}
