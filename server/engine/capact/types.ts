/**
 * Types of the Capact interface-policy engine (reference/capact.md): the Hub
 * model an Implementation is chosen from, the policy that chooses it, and
 * the engine's results. Everything is plain JSON-shaped data so a result can
 * be stored, diffed and sent to the console as it is.
 *
 * Errors are data, not exceptions: a policy is user input, and a policy that
 * names a TypeInstance nobody has must become a message that says so, never a
 * crashed render.
 */
import { errorAt, type Diagnostic, type Site } from '../diagnostics';

/** `{path, revision}` with a required revision: what the Hub stores. */
export interface TypeRef {
  path: string;
  revision: string;
}

/** `{path, revision?}`: what policies write; no revision means "any revision". */
export interface RefWithOptRevision {
  path: string;
  revision?: string;
}

// ---------------------------------------------------------------- Hub model

export interface Attribute {
  path: string;
  revision: string;
}

/** One item of a `spec.requires` group. The alias is what lets a policy inject a TypeInstance for it. */
export interface RequirementItem {
  typeRef: TypeRef;
  alias?: string;
  valueConstraints?: unknown;
}

/** One `spec.requires` entry: a prefix with its oneOf/allOf/anyOf lists. */
export interface RequirementGroup {
  prefix: string;
  oneOf: RequirementItem[];
  allOf: RequirementItem[];
  anyOf: RequirementItem[];
}

export interface AdditionalParameter {
  name: string;
  typeRef: TypeRef;
}

export interface InputTypeInstanceDecl {
  name: string;
  typeRef: TypeRef;
  verbs?: string[];
}

export interface ImplementationImport {
  interfaceGroupPath: string;
  alias: string;
  methods: { name: string; revision?: string }[];
}

export interface OutputTypeInstanceRelation {
  typeInstanceName: string;
  uses: string[];
}

/** A step of an Implementation's workflow that matters to the policy engine. */
export interface WorkflowStep {
  template: string;
  name: string;
  /** `capact-action`: `<import alias>.<method>`. */
  action?: string;
  /** `capact-when`: only `<name> == nil` / `<name> != nil` are understood. */
  when?: string;
  /** `capact-policy`: a Workflow-step policy, as written (interface may be an import alias string). */
  policy?: WorkflowPolicy;
  /** `capact-outputTypeInstances`. */
  outputTypeInstances: { name: string; from?: string; backend?: string }[];
  /** Names of the step's argument artifacts. */
  argumentArtifacts: string[];
}

export interface Implementation {
  path: string;
  revision: string;
  displayName?: string;
  attributes: Attribute[];
  implements: TypeRef[];
  requires: RequirementGroup[];
  imports: ImplementationImport[];
  additionalInput: { parameters: AdditionalParameter[]; typeInstances: InputTypeInstanceDecl[] };
  additionalOutput: { typeInstances: InputTypeInstanceDecl[] };
  outputTypeInstanceRelations: OutputTypeInstanceRelation[];
  steps: WorkflowStep[];
}

export interface Interface {
  path: string;
  revision: string;
  input: { parameters: { name: string; typeRef?: TypeRef; jsonSchema?: unknown }[]; typeInstances: InputTypeInstanceDecl[] };
  output: { typeInstances: { name: string; typeRef: TypeRef }[] };
}

export interface Type {
  path: string;
  revision: string;
  /** Parsed JSON Schema (the manifests carry it as a JSON string). */
  jsonSchema?: unknown;
  additionalRefs: string[];
}

export interface TypeInstance {
  id: string;
  typeRef: TypeRef;
  value?: unknown;
  backend?: { id: string; abstract?: boolean };
}

/** Revisions of one node, newest first (semver; non-semver revisions sort after, by string). */
export type Revisions<T> = T[];

export interface Hub {
  interfaces: Record<string, Revisions<Interface>>;
  implementations: Record<string, Revisions<Implementation>>;
  types: Record<string, Revisions<Type>>;
  attributes: Record<string, Revisions<Attribute>>;
  typeInstances: Record<string, TypeInstance>;
  /**
   * How an Implementation is matched to an Interface revision. The real Hub
   * matches `implements[]` exactly; Capact's test Hub (`fake.go`), which the
   * corpus fixtures were written for, by path only.
   */
  implementsMatch: 'exact' | 'path';
}

// ------------------------------------------------------------------- Policy

export interface RequiredTypeInstanceToInject {
  id: string;
  description?: string;
  /** Resolved from the Local Hub by id; ignored when read from user YAML (Capact: `json:"-"`). */
  typeRef?: TypeRef;
}

export interface AdditionalParameterToInject {
  name: string;
  value: Record<string, unknown>;
}

export interface AdditionalTypeInstanceToInject {
  name: string;
  id: string;
  /** Resolved from the Local Hub by id; ignored when read from user YAML. */
  typeRef?: TypeRef;
}

export interface InjectData {
  requiredTypeInstances?: RequiredTypeInstanceToInject[];
  additionalParameters?: AdditionalParameterToInject[];
  additionalTypeInstances?: AdditionalTypeInstanceToInject[];
}

export interface ImplementationConstraints {
  /** An unanchored Go regular expression (the docs call it an exact path). */
  path?: string;
  attributes?: RefWithOptRevision[];
  requires?: RefWithOptRevision[];
}

export interface PolicyRule {
  implementationConstraints: ImplementationConstraints;
  inject?: InjectData;
}

export interface RulesForInterface {
  interface: RefWithOptRevision;
  /** Ordered; `[]` denies every Implementation of the Interface. */
  oneOf: PolicyRule[];
}

export interface TypeInstanceBackendRef {
  id: string;
  description?: string;
}

export interface RulesForTypeInstance {
  /** Exact path, `prefix.*` or `cap.*`. */
  typeRef: RefWithOptRevision;
  backend: TypeInstanceBackendRef;
}

export interface Policy {
  interface?: {
    default?: { inject?: { requiredTypeInstances?: RequiredTypeInstanceToInject[] } };
    rules?: RulesForInterface[];
  };
  typeInstance?: { rules?: RulesForTypeInstance[] };
}

/** A Workflow-step policy: only `additionalParameters` may be injected; `interface` may be an import alias. */
export interface WorkflowPolicy {
  interface?: {
    rules?: {
      interface: RefWithOptRevision | string;
      oneOf: { implementationConstraints: ImplementationConstraints; inject?: { additionalParameters?: AdditionalParameterToInject[] } }[];
    }[];
  };
}

export type PolicyKind = 'GLOBAL' | 'ACTION' | 'WORKFLOW';
export const DEFAULT_POLICY_ORDER: readonly PolicyKind[] = ['ACTION', 'GLOBAL', 'WORKFLOW'];

/**
 * `documented`: the higher-priority policy wins everywhere, as Capact's docs
 * promise. `capact-compat`: what Capact 0.7.0's code does (lower priority
 * wins for `interface.default` and `typeInstance.rules`; see merge.ts).
 */
export type MergeMode = 'documented' | 'capact-compat';

// ------------------------------------------------------------------- Errors

export type CapactErrorCode =
  | 'invalid_policy'
  | 'invalid_manifest'
  | 'missing_type_reference'
  | 'not_hub_storage'
  | 'no_implementation'
  | 'duplicated_alias'
  | 'additional_type_instance'
  | 'additional_parameters'
  | 'backend_alias'
  | 'action_reference'
  | 'max_depth'
  /** The host's deadline for the choice passed (ChooseOptions.deadline). */
  | 'time_limit';

export interface CapactError {
  code: CapactErrorCode;
  /** Capact's own wording where the reference or corpus gives it. */
  message: string;
  /** The field the issue is about (a TypeInstance name, a parameter name, an alias…). */
  field?: string;
  /** Where in the input, e.g. `['interface', 'rules', 0, 'oneOf', 1]`. */
  path?: (string | number)[];
  /** The individual issues behind a grouped message, by field. */
  issues?: { field: string; message: string }[];
}

// ------------------------------------------------------------------ Results

export interface ImplementationRequest {
  interface: RefWithOptRevision;
}

/** Which rule decided, as data. */
export interface MatchedRule {
  /** The lookup key that was found: `path:revision`, `path` or `cap.*`. */
  key: string;
  /** Index in the merged `interface.rules` (the last rule with that key: later entries overwrite earlier ones). */
  ruleIndex: number;
  interface: RefWithOptRevision;
  /** Index of the oneOf item that returned Implementations; null when none did (or oneOf is empty). */
  oneOfIndex: number | null;
  constraints: ImplementationConstraints | null;
}

export type RejectionConstraint = 'path' | 'attributes' | 'requirements' | 'requires' | 'sorted' | 'no-rule' | 'denied';

export interface Rejection {
  path: string;
  revision: string;
  /** The first constraint it failed under the decisive oneOf item (the winning one, else the last tried). */
  constraint: RejectionConstraint;
  reason: string;
  /** Every oneOf item tried up to the decisive one, with the first constraint failed under each. */
  byOneOf: { oneOfIndex: number; constraint: RejectionConstraint; reason: string }[];
}

export interface InjectedRequiredTypeInstance {
  alias: string;
  id: string;
  description?: string;
  typeRef: TypeRef;
}

export interface BackendChoice {
  /** Output TypeInstance name. */
  name: string;
  typeRef: TypeRef | null;
  /** null: no rule matched, the built-in Local Hub storage is used. */
  backend: TypeInstanceBackendRef | null;
  /** How it was found: an alias named by `capact-outputTypeInstances[].backend`, a typeInstance rule key, or the default storage. */
  via: { kind: 'alias'; alias: string } | { kind: 'typeRef'; key: string } | { kind: 'default' };
}

export interface ImplementationChoice {
  ok: boolean;
  interface: TypeRef;
  implementation: TypeRef | null;
  rule: MatchedRule | null;
  /** Every Implementation the winning oneOf item returned, in Capact's order (path asc, revision desc); the first is chosen. */
  candidates: TypeRef[];
  injected: {
    requiredTypeInstances: InjectedRequiredTypeInstance[];
    additionalParameters: AdditionalParameterToInject[];
    additionalTypeInstances: { name: string; id: string; typeRef?: TypeRef }[];
  };
  backends: BackendChoice[];
  rejected: Rejection[];
  errors: CapactError[];
}

const CAPACT_CODES: Record<CapactErrorCode, Diagnostic['code']> = {
  invalid_policy: 'schema',
  invalid_manifest: 'schema',
  missing_type_reference: 'invalid_reference',
  not_hub_storage: 'invalid_reference',
  no_implementation: 'claim_error',
  duplicated_alias: 'schema',
  additional_type_instance: 'invalid_reference',
  additional_parameters: 'schema',
  backend_alias: 'invalid_reference',
  action_reference: 'invalid_reference',
  max_depth: 'limit',
  time_limit: 'time_limit',
};

/** A Capact error where it happened: `site.object` is the object read; the error's own path is inside it unless `site` gives one. */
export function capactDiagnostic(e: CapactError, site: Site = {}): Diagnostic {
  return errorAt(CAPACT_CODES[e.code], e.message, { ...(e.path ? { path: e.path } : {}), ...site });
}
