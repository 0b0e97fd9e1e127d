/**
 * Gardener Landscaper's objects as the engine sees them (reference
 * landscaper.md §2): only the fields that decide scopes, imports, exports,
 * ordering, deploy items and phases. Everything is plain JSON-like data.
 */
import { errorAt, type Diagnostic, type Site } from '../diagnostics';

/** Where an installation import comes from. Exactly one source is set. */
export interface DataImport {
  name: string;
  dataRef?: string;
  secretRef?: { name: string; namespace?: string; key?: string };
  configMapRef?: { name: string; namespace?: string; key?: string };
}

export interface TargetImport {
  name: string;
  target?: string;
  targets?: string[];
  targetListRef?: string;
  targetMap?: Record<string, string>;
  targetMapRef?: string;
}

export interface DataExport {
  name: string;
  dataRef: string;
}

export interface TargetExport {
  name: string;
  target: string;
}

export interface InstallationImports {
  data: DataImport[];
  targets: TargetImport[];
}

export interface InstallationExports {
  data: DataExport[];
  targets: TargetExport[];
}

/** How an Installation names its blueprint. */
export type BlueprintSource =
  | { kind: 'ref'; resourceName: string; componentName?: string }
  /** `cd://componentReferences/<c>/resources/<r>` in an InstallationTemplate. */
  | { kind: 'cdRef'; uri: string }
  | { kind: 'inline'; filesystem: Filesystem };

/** A blueprint's files, path (without a leading slash) → text. */
export type Filesystem = Record<string, string>;

/** An Installation object, or an InstallationTemplate rendered by a parent blueprint. */
export interface Installation {
  name: string;
  namespace: string;
  /** Name of the Installation that created it (label `landscaper.gardener.cloud/encompassed-by`); absent for roots. */
  parent?: string;
  /**
   * A subinstallation made from a blueprint's template: its whole scope
   * path (`root/a/child`). Its template name is unique only among its
   * siblings, so the context it opens is named by this path; Landscaper
   * gives such objects generated, unique names for the same reason.
   */
  scopePath?: string;
  context?: string;
  componentName?: string;
  blueprint: BlueprintSource | null;
  imports: InstallationImports;
  importDataMappings: Record<string, unknown>;
  exports: InstallationExports;
  exportDataMappings: Record<string, unknown>;
  annotations: Record<string, string>;
}

export type ImportType = 'data' | 'target' | 'targetList' | 'targetMap';

export interface ImportDefinition {
  name: string;
  type: ImportType;
  schema?: unknown;
  targetType?: string;
  /** Landscaper's default is true. */
  required: boolean;
  default?: { value: unknown };
  /** Conditional imports: considered only when this import is present. */
  imports: ImportDefinition[];
}

export interface ExportDefinition {
  name: string;
  type: 'data' | 'target';
  schema?: unknown;
  targetType?: string;
}

export interface TemplateExecution {
  name: string;
  type: 'GoTemplate' | 'Spiff';
  /** GoTemplate source text, or the Spiff document. */
  template: unknown;
}

/** A subinstallation declared in a blueprint (static or rendered). */
export interface InstallationTemplate {
  name: string;
  blueprint: BlueprintSource | null;
  imports: InstallationImports;
  importDataMappings: Record<string, unknown>;
  exports: InstallationExports;
  exportDataMappings: Record<string, unknown>;
}

export interface Blueprint {
  imports: ImportDefinition[];
  exports: ExportDefinition[];
  subinstallations: InstallationTemplate[];
  subinstallationExecutions: TemplateExecution[];
  importExecutions: TemplateExecution[];
  deployExecutions: TemplateExecution[];
  exportExecutions: TemplateExecution[];
  filesystem: Filesystem;
}

export interface DataObject {
  namespace: string;
  name: string;
  data: unknown;
  /** Labels `data.landscaper.gardener.cloud/context` and `/key`, when Landscaper wrote the object. */
  context?: string;
  key?: string;
}

/** Targets are imported as whole objects: templates read `.spec.type`, `.spec.config`. */
export interface Target {
  namespace: string;
  name: string;
  object: { apiVersion: string; kind: 'Target'; metadata: { name: string; namespace: string }; spec: { type: string; config?: unknown; secretRef?: unknown } };
}

export interface Context {
  namespace: string;
  name: string;
  repositoryContext?: unknown;
}

/** A Secret or ConfigMap usable as a data import source. */
export interface KeyValueSource {
  kind: 'Secret' | 'ConfigMap';
  namespace: string;
  name: string;
  data: Record<string, unknown>;
}

/** A deploy item produced by `deployExecutions`; in Keelson it becomes an instance. */
export interface DeployItem {
  name: string;
  type: string;
  target?: { import: string; key?: string };
  config: unknown;
  dependsOn: string[];
  phase: 'Succeeded' | 'Failed';
  /** What the offline deployer exported (`deployitems.<name>` in export executions). */
  exports: Record<string, unknown>;
  /** Why the offline deployer did what it did (e.g. "not simulated offline"). */
  note?: string;
}

/**
 * Landscaper's phases, and Keelson's `Pending`: the install run succeeded,
 * and what it deploys waits for its revision to be accepted and applied.
 */
export type Phase = 'Init' | 'ObjectsCreated' | 'Progressing' | 'Completing' | 'Succeeded' | 'Failed' | 'Pending' | DeletePhase;
/** An installation taken out of the policy, on its way out (reference landscaper.md §9). */
export type DeletePhase = 'InitDelete' | 'Deleting' | 'DeleteFailed';

export type LandscaperErrorCode =
  | 'invalid_object'
  | 'blueprint_not_found'
  | 'invalid_blueprint'
  | 'import_not_found'
  | 'import_not_satisfied'
  | 'import_schema'
  | 'import_target_type'
  | 'import_validation'
  | 'data_mapping'
  | 'execution'
  | 'duplicate_export'
  | 'export_imported_by_parent'
  | 'cycle'
  | 'predecessor_failed'
  | 'subinstallation_failed'
  | 'deploy_item_failed'
  | 'export_not_defined'
  | 'export_schema'
  | 'export_conflict'
  /** The root installation ran out of the time the host gives one (engine/host-clock.ts). */
  | 'time_limit';

export interface LandscaperError {
  code: LandscaperErrorCode;
  /** One line, as the console shows it. */
  message: string;
  /** Scope path of the installation, e.g. `root/sub1`. */
  installation?: string;
  /** The installation's field the error is about, e.g. `['spec', 'imports', 'targets', 0, 'target']`, so a caller can point at its line. */
  path?: (string | number)[];
  /** For cycles: the installations on the cycle, first repeated at the end. */
  cycle?: string[];
  /** For duplicate exports: the key and who exports it. */
  exportedBy?: { key: string; installations: string[] };
}

export interface PhaseStep {
  phase: Phase;
  reason: string;
}

/** An import or export of an installation, and the key it reads or writes in the scope it lives in. */
export interface Wire {
  name: string;
  kind: 'data' | 'target';
  /** A DataObject or Target name in the scope; `secret:<name>` / `configmap:<name>` for those sources. */
  key: string;
}

export interface InstallationResult {
  /** Scope path: `root`, `root/sub1`. */
  name: string;
  namespace: string;
  /** The context it lives in: "" for roots, the context its parent opens otherwise. */
  scope: string;
  /** The context it opens for its subinstallations, when it got that far: `Inst.<name>`, or `Inst.<scope path>` for one made from a template. */
  opens?: string;
  phase: Phase;
  /** The phases it went through, each with why. */
  phases: PhaseStep[];
  imports: Record<string, unknown>;
  exports: Record<string, unknown>;
  errors: LandscaperError[];
  deployItems: DeployItem[];
  /** Which scope keys it imports from and exports to: the data-flow edges of the scope graph. */
  wiring: { imports: Wire[]; exports: Wire[] };
  /**
   * On a root: it failed having run out of its time (engine/host-clock.ts),
   * or waited for a root that did. The clock decided it, not the objects,
   * so nothing keeps this result.
   */
  timedOut?: true;
}

const LANDSCAPER_CODES: Record<LandscaperErrorCode, Diagnostic['code']> = {
  invalid_object: 'schema',
  blueprint_not_found: 'invalid_reference',
  invalid_blueprint: 'schema',
  import_not_found: 'invalid_reference',
  import_not_satisfied: 'invalid_reference',
  import_schema: 'schema',
  import_target_type: 'invalid_reference',
  import_validation: 'schema',
  data_mapping: 'evaluation',
  execution: 'evaluation',
  duplicate_export: 'duplicate_object',
  export_imported_by_parent: 'invalid_reference',
  cycle: 'cycle',
  predecessor_failed: 'claim_error',
  subinstallation_failed: 'claim_error',
  deploy_item_failed: 'claim_error',
  export_not_defined: 'invalid_reference',
  export_schema: 'schema',
  export_conflict: 'duplicate_object',
  time_limit: 'time_limit',
};

/** A Landscaper error where it happened: `site` names the stored object; the error's own path is the installation's field unless `site` gives one. */
export function landscaperDiagnostic(e: LandscaperError, site: Site = {}): Diagnostic {
  return errorAt(LANDSCAPER_CODES[e.code], e.message, { ...(e.path ? { path: e.path } : {}), ...site });
}
