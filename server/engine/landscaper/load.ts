/**
 * Reads Landscaper YAML as users write it: `landscaper.gardener.cloud/v1alpha1`
 * Installation, DataObject, Target, Context; Secrets and ConfigMaps (import
 * sources); blueprint filesystems given as path → text maps. Mistakes come
 * back as errors, never exceptions.
 */
import { parse, parseAllDocuments } from 'yaml';
import type {
  Blueprint,
  BlueprintSource,
  Context,
  DataObject,
  ExportDefinition,
  Filesystem,
  ImportDefinition,
  Installation,
  InstallationExports,
  InstallationImports,
  InstallationTemplate,
  KeyValueSource,
  LandscaperError,
  Target,
  TemplateExecution,
} from './types';
import { isRecord } from '../lang/data';

const ENCOMPASSED_BY = 'landscaper.gardener.cloud/encompassed-by';
const TARGET_TYPE_PREFIX = 'landscaper.gardener.cloud/';

export type Rec = Record<string, unknown>;
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const rec = (v: unknown): Rec => (isRecord(v) ? v : {});
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

export interface LoadedObjects {
  installations: Installation[];
  dataObjects: DataObject[];
  targets: Target[];
  contexts: Context[];
  sources: KeyValueSource[];
  errors: LandscaperError[];
}

/** Splits YAML text (possibly multi-document) into objects. */
export function parseYamlDocuments(text: string): unknown[] {
  return parseAllDocuments(text)
    .map((d) => d.toJS({ maxAliasCount: 100 }) as unknown)
    .filter((d) => d !== null && d !== undefined);
}

export function loadObjects(objects: readonly unknown[], defaultNamespace = 'default'): LoadedObjects {
  const out: LoadedObjects = { installations: [], dataObjects: [], targets: [], contexts: [], sources: [], errors: [] };
  for (const obj of objects) {
    if (!isRecord(obj)) continue;
    const kind = str(obj.kind);
    const meta = rec(obj.metadata);
    const name = str(meta.name);
    const namespace = str(meta.namespace) ?? defaultNamespace;
    if (!name) {
      out.errors.push({ code: 'invalid_object', message: `${kind ?? 'object'} without metadata.name` });
      continue;
    }
    switch (kind) {
      case 'Installation':
        out.installations.push(readInstallation(obj, name, namespace));
        break;
      case 'DataObject': {
        const labels = rec(meta.labels);
        const context = str(labels['data.landscaper.gardener.cloud/context']);
        const key = str(labels['data.landscaper.gardener.cloud/key']);
        out.dataObjects.push({ namespace, name, data: obj.data ?? null, ...(context !== undefined ? { context } : {}), ...(key !== undefined ? { key } : {}) });
        break;
      }
      case 'Target': {
        const spec = rec(obj.spec);
        out.targets.push({
          namespace,
          name,
          object: { apiVersion: str(obj.apiVersion) ?? 'landscaper.gardener.cloud/v1alpha1', kind: 'Target', metadata: { name, namespace }, spec: { ...spec, type: str(spec.type) ?? '' } },
        });
        break;
      }
      case 'Context':
        out.contexts.push({ namespace, name, repositoryContext: obj.repositoryContext });
        break;
      case 'Secret': {
        // Secret `data` is base64; `stringData` is plain. Both become plain strings.
        const data: Rec = {};
        for (const [k, v] of Object.entries(rec(obj.data))) data[k] = typeof v === 'string' ? decodeBase64(v) : v;
        Object.assign(data, rec(obj.stringData));
        out.sources.push({ kind: 'Secret', namespace, name, data });
        break;
      }
      case 'ConfigMap':
        out.sources.push({ kind: 'ConfigMap', namespace, name, data: rec(obj.data) });
        break;
      default:
        out.errors.push({ code: 'invalid_object', message: `${kind ?? 'object without kind'} ${name}: not a Landscaper object` });
    }
  }
  return out;
}

function decodeBase64(s: string): string {
  try {
    return new TextDecoder().decode(Uint8Array.from(atob(s), (c) => c.charCodeAt(0)));
  } catch {
    return s;
  }
}

function readImports(v: unknown): InstallationImports {
  const r = rec(v);
  return {
    data: list(r.data)
      .filter(isRecord)
      .map((d) => ({
        name: str(d.name) ?? '',
        ...(str(d.dataRef) !== undefined ? { dataRef: str(d.dataRef)! } : {}),
        ...(isRecord(d.secretRef) ? { secretRef: d.secretRef as { name: string; key?: string } } : {}),
        ...(isRecord(d.configMapRef) ? { configMapRef: d.configMapRef as { name: string; key?: string } } : {}),
      })),
    targets: list(r.targets)
      .filter(isRecord)
      .map((t) => ({
        name: str(t.name) ?? '',
        ...(str(t.target) !== undefined ? { target: str(t.target)! } : {}),
        ...(Array.isArray(t.targets) ? { targets: t.targets.map(String) } : {}),
        ...(str(t.targetListRef) !== undefined ? { targetListRef: str(t.targetListRef)! } : {}),
        ...(isRecord(t.targetMap) ? { targetMap: Object.fromEntries(Object.entries(t.targetMap).map(([k, x]) => [k, String(x)])) } : {}),
        ...(str(t.targetMapRef) !== undefined ? { targetMapRef: str(t.targetMapRef)! } : {}),
      })),
  };
}

function readExports(v: unknown): InstallationExports {
  const r = rec(v);
  return {
    data: list(r.data)
      .filter(isRecord)
      .map((d) => ({ name: str(d.name) ?? '', dataRef: str(d.dataRef) ?? '' })),
    targets: list(r.targets)
      .filter(isRecord)
      .map((t) => ({ name: str(t.name) ?? '', target: str(t.target) ?? '' })),
  };
}

function readBlueprintSource(v: unknown, componentName?: string): BlueprintSource | null {
  const r = rec(v);
  if (typeof r.ref === 'string') return { kind: 'cdRef', uri: r.ref };
  if (isRecord(r.ref) && str(r.ref.resourceName)) return { kind: 'ref', resourceName: str(r.ref.resourceName)!, ...(componentName ? { componentName } : {}) };
  const fs = isRecord(r.inline) ? r.inline.filesystem : r.filesystem;
  if (isRecord(fs)) return { kind: 'inline', filesystem: normalizeFilesystem(fs) };
  return null;
}

/** Inline filesystems may nest directories as maps; flatten to path → text. */
export function normalizeFilesystem(fs: Rec, prefix = ''): Filesystem {
  const out: Filesystem = {};
  for (const [k, v] of Object.entries(fs)) {
    const path = `${prefix}${k.replace(/^\/+/, '')}`;
    if (typeof v === 'string') out[path] = v;
    else if (isRecord(v)) Object.assign(out, normalizeFilesystem(v, `${path}/`));
  }
  return out;
}

export function readInstallation(obj: Rec, name: string, namespace: string): Installation {
  const meta = rec(obj.metadata);
  const spec = rec(obj.spec);
  const labels = rec(meta.labels);
  const owner = list(meta.ownerReferences).find((o) => isRecord(o) && o.kind === 'Installation') as Rec | undefined;
  const parent = str(labels[ENCOMPASSED_BY]) ?? str(owner?.name);
  const componentName = str(rec(rec(spec.componentDescriptor).ref).componentName);
  return {
    name,
    namespace,
    ...(parent ? { parent } : {}),
    ...(str(spec.context) ? { context: str(spec.context)! } : {}),
    ...(componentName ? { componentName } : {}),
    blueprint: readBlueprintSource(spec.blueprint, componentName),
    imports: readImports(spec.imports),
    importDataMappings: rec(spec.importDataMappings),
    exports: readExports(spec.exports),
    exportDataMappings: rec(spec.exportDataMappings),
    annotations: Object.fromEntries(Object.entries(rec(meta.annotations)).map(([k, v]) => [k, String(v)])),
  };
}

export function readInstallationTemplate(obj: unknown): InstallationTemplate {
  const r = rec(obj);
  return {
    name: str(r.name) ?? '',
    blueprint: readBlueprintSource(r.blueprint),
    imports: readImports(r.imports),
    importDataMappings: rec(r.importDataMappings),
    exports: readExports(r.exports),
    exportDataMappings: rec(r.exportDataMappings),
  };
}

function fullTargetType(t: string | undefined): string | undefined {
  if (t === undefined) return undefined;
  return t.includes('/') ? t : TARGET_TYPE_PREFIX + t;
}

function readImportDefinition(v: unknown): ImportDefinition {
  const r = rec(v);
  const targetType = fullTargetType(str(r.targetType));
  const declared = str(r.type);
  const type = (declared === 'data' || declared === 'target' || declared === 'targetList' || declared === 'targetMap' ? declared : r.schema !== undefined ? 'data' : 'target') as ImportDefinition['type'];
  return {
    name: str(r.name) ?? '',
    type,
    ...(r.schema !== undefined ? { schema: r.schema } : {}),
    ...(targetType ? { targetType } : {}),
    required: r.required === undefined ? true : r.required === true,
    ...(isRecord(r.default) && 'value' in r.default ? { default: { value: r.default.value } } : {}),
    imports: list(r.imports).map(readImportDefinition),
  };
}

function readExportDefinition(v: unknown): ExportDefinition {
  const r = rec(v);
  const targetType = fullTargetType(str(r.targetType));
  return {
    name: str(r.name) ?? '',
    type: str(r.type) === 'target' || (r.schema === undefined && targetType) ? 'target' : 'data',
    ...(r.schema !== undefined ? { schema: r.schema } : {}),
    ...(targetType ? { targetType } : {}),
  };
}

function fileIn(fs: Filesystem, path: string): string | undefined {
  return fs[path.replace(/^\/+/, '')];
}

/** A blueprint from its filesystem (`blueprint.yaml` at the root). */
export function loadBlueprint(fs: Filesystem): { blueprint: Blueprint | null; errors: string[] } {
  const errors: string[] = [];
  const text = fileIn(fs, 'blueprint.yaml');
  if (text === undefined) return { blueprint: null, errors: ['the blueprint filesystem has no blueprint.yaml'] };
  let doc: Rec;
  try {
    doc = rec(parse(text, { maxAliasCount: 100 }));
  } catch (e) {
    return { blueprint: null, errors: [`blueprint.yaml: ${(e as Error).message.split('\n')[0]}`] };
  }
  const executions = (key: string): TemplateExecution[] =>
    list(doc[key])
      .filter(isRecord)
      .flatMap((x, i) => {
        const type = str(x.type);
        const name = str(x.name) ?? `${key}[${i}]`;
        if (type !== 'GoTemplate' && type !== 'Spiff') {
          errors.push(`${key} ${name}: unknown execution type ${JSON.stringify(x.type)} (GoTemplate or Spiff)`);
          return [];
        }
        let template: unknown = x.template;
        if (str(x.file)) {
          const file = fileIn(fs, str(x.file)!);
          if (file === undefined) {
            errors.push(`${key} ${name}: file ${str(x.file)} not found in the blueprint`);
            return [];
          }
          template = file;
        }
        if (type === 'Spiff' && typeof template === 'string') {
          try {
            template = parse(template, { maxAliasCount: 100 });
          } catch (e) {
            errors.push(`${key} ${name}: ${(e as Error).message.split('\n')[0]}`);
            return [];
          }
        }
        return [{ name, type, template }];
      });
  const subinstallations = list(doc.subinstallations).flatMap((s) => {
    if (isRecord(s) && str(s.file)) {
      const file = fileIn(fs, str(s.file)!);
      if (file === undefined) {
        errors.push(`subinstallation file ${str(s.file)} not found in the blueprint`);
        return [];
      }
      try {
        return [readInstallationTemplate(parse(file, { maxAliasCount: 100 }))];
      } catch (e) {
        errors.push(`subinstallation ${str(s.file)}: ${(e as Error).message.split('\n')[0]}`);
        return [];
      }
    }
    return [readInstallationTemplate(s)];
  });
  return {
    blueprint: {
      imports: list(doc.imports).map(readImportDefinition),
      exports: list(doc.exports).map(readExportDefinition),
      subinstallations,
      subinstallationExecutions: executions('subinstallationExecutions'),
      importExecutions: executions('importExecutions'),
      deployExecutions: executions('deployExecutions'),
      exportExecutions: executions('exportExecutions'),
      filesystem: fs,
    },
    errors,
  };
}
