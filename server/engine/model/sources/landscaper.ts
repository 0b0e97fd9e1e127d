/**
 * Gardener Landscaper: `apiVersion: landscaper.gardener.cloud/v1alpha1`
 * with `kind` and Kubernetes `metadata.{namespace, name}` — Installation,
 * DataObject, Target and Context as Landscaper writes them, and Blueprint:
 * a blueprint.yaml given a name (the `resourceName` installations refer to
 * it by) and, when it has more files (subinstallation files, templates),
 * a `files` map of path → text. The namespace is the root scope; an object
 * without one lives in `default`, as in Kubernetes.
 *
 * Schemas check the envelope; the install engine (server/engine/landscaper)
 * reads the rest, and its own reading of a blueprint is the save-time check.
 */
import { z } from 'zod';
import { stringify } from 'yaml';
import type { Diagnostic } from '../../diagnostics';
import { objectRef } from '../../diagnostics';
import { loadBlueprint } from '../../landscaper';
import { checkSetting, type ReconcileSetting } from '../../landscaper/auto-reconcile';
import { defineSource, type CheckedObject, type Identity } from './types';

export const LANDSCAPER_API = 'landscaper.gardener.cloud/v1alpha1';
export const LANDSCAPER_KINDS = ['installation', 'blueprint', 'dataobject', 'target', 'context'] as const;
const KIND_NAMES: Record<string, string> = { installation: 'Installation', blueprint: 'Blueprint', dataobject: 'DataObject', target: 'Target', context: 'Context' };

const namespace = z.string().regex(/^[a-zA-Z][a-zA-Z0-9_-]{0,63}$/, 'must start with a letter and hold only letters, digits, "_" or "-" (at most 64)');
const k8sName = z.string().max(253).regex(/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/, 'must be a Kubernetes name (lower-case letters, digits, "-" and ".")');

function landscaperIdentity(doc: Readonly<Record<string, unknown>>): Identity {
  const md = (typeof doc.metadata === 'object' && doc.metadata !== null ? doc.metadata : {}) as Record<string, unknown>;
  return {
    kind: typeof doc.kind === 'string' ? doc.kind : undefined,
    namespace: typeof md.namespace === 'string' ? md.namespace : 'default',
    name: typeof md.name === 'string' ? md.name : undefined,
  };
}

function envelope(kind: string) {
  return {
    apiVersion: z.string().startsWith('landscaper.gardener.cloud/', 'must be a landscaper.gardener.cloud API version'),
    kind: z.string().describe(`Object kind: ${kind}`),
    metadata: z.object({ name: k8sName, namespace: namespace.optional() }).loose(),
  };
}

const installationSchema = z
  .object({
    ...envelope('Installation'),
    spec: z
      .object({
        blueprint: z.object({ ref: z.object({ resourceName: z.string().min(1) }).loose().optional(), inline: z.unknown().optional() }).loose(),
        imports: z.unknown().optional(),
        exports: z.unknown().optional(),
        importDataMappings: z.record(z.string(), z.unknown()).optional(),
        exportDataMappings: z.record(z.string(), z.unknown()).optional(),
      })
      .loose(),
  })
  .loose();

const blueprintSchema = z
  .object({
    ...envelope('Blueprint'),
    files: z.record(z.string().min(1).max(500), z.string()).optional().describe('Further files of the blueprint filesystem, path → text'),
  })
  .loose();

const dataObjectSchema = z.object({ ...envelope('DataObject'), data: z.unknown() }).loose();
const targetSchema = z
  .object({
    ...envelope('Target'),
    spec: z.object({ type: z.string().min(1), config: z.unknown().optional().describe('Credentials to reach the target (a kubeconfig for kubernetes-cluster targets): shown whole to domain admins only') }).loose(),
  })
  .loose();
const contextSchema = z.object({ ...envelope('Context') }).loose();

/** A stored Blueprint object as the engine's filesystem: `blueprint.yaml` (without Keelson's name and files) and its files. */
export function blueprintFilesystem(spec: Record<string, unknown>): Record<string, string> {
  const { metadata: _m, files, ...blueprint } = spec as { metadata?: unknown; files?: Record<string, string> } & Record<string, unknown>;
  return { ...(files ?? {}), 'blueprint.yaml': stringify({ ...blueprint, kind: 'Blueprint' }) };
}

/** automaticReconcile settings the job loop could not follow are refused at save. */
function checkInstallation(o: CheckedObject): Diagnostic[] {
  const ar = ((o.spec as { spec?: { automaticReconcile?: unknown } }).spec?.automaticReconcile ?? {}) as Record<string, ReconcileSetting | undefined>;
  return (['succeededReconcile', 'failedReconcile'] as const).flatMap((which) => {
    const path = ['spec', 'automaticReconcile', which];
    // At the setting's own line when the text can say where it is.
    const pos = o.locate?.(path) ?? o.pos;
    return checkSetting(ar[which], path.join('.')).map((message) => ({ code: 'schema' as const, severity: 'error' as const, message, object: objectRef(o.kind, o.namespace, o.name), file: o.file, ...pos }));
  });
}

function checkBlueprint(o: CheckedObject): Diagnostic[] {
  const { errors } = loadBlueprint(blueprintFilesystem(o.spec as Record<string, unknown>));
  return errors.map((message) => ({ code: 'schema' as const, severity: 'error' as const, message, object: objectRef(o.kind, o.namespace, o.name), file: o.file, ...o.pos }));
}

const EXAMPLES = {
  installation: `apiVersion: landscaper.gardener.cloud/v1alpha1
kind: Installation
metadata:
  name: application
  namespace: demo
spec:
  blueprint:
    ref:
      resourceName: my-application
  imports:
    targets:
      - name: cluster
        target: my-cluster
    data:
      - name: config
        dataRef: config
  exports:
    data:
      - name: exports
        dataRef: exports
`,
  blueprint: `apiVersion: landscaper.gardener.cloud/v1alpha1
kind: Blueprint
metadata:
  name: my-application
  namespace: demo
imports:
  - name: cluster
    targetType: landscaper.gardener.cloud/kubernetes-cluster
  - name: config
    type: data
    schema:
      type: string
exports:
  - name: exports
    type: data
    schema:
      type: string
exportExecutions:
  - name: export
    type: GoTemplate
    template: |
      exports:
        exports: "{{ .imports.config }}"
`,
  dataobject: `apiVersion: landscaper.gardener.cloud/v1alpha1
kind: DataObject
metadata:
  name: config
  namespace: demo
data: some value
`,
  target: `apiVersion: landscaper.gardener.cloud/v1alpha1
kind: Target
metadata:
  name: my-cluster
  namespace: demo
spec:
  type: landscaper.gardener.cloud/kubernetes-cluster
  config: {}
`,
  context: `apiVersion: landscaper.gardener.cloud/v1alpha1
kind: Context
metadata:
  name: default
  namespace: demo
`,
};

export const LANDSCAPER = defineSource({
  name: 'landscaper',
  title: 'Gardener Landscaper',
  recognises: (doc) => typeof doc.apiVersion === 'string' && doc.apiVersion.startsWith('landscaper.gardener.cloud/'),
  identify: landscaperIdentity,
  kinds: {
    installation: { schema: installationSchema, kindNames: [KIND_NAMES.installation!], example: EXAMPLES.installation, description: 'Landscaper Installation: a blueprint instantiated with its imports, in its own scope', check: checkInstallation },
    blueprint: { schema: blueprintSchema, kindNames: [KIND_NAMES.blueprint!], example: EXAMPLES.blueprint, description: 'Landscaper Blueprint: imports, exports, subinstallations and executions', check: checkBlueprint },
    dataobject: { schema: dataObjectSchema, kindNames: [KIND_NAMES.dataobject!], example: EXAMPLES.dataobject, description: 'Landscaper DataObject: a value installations import and export' },
    target: {
      schema: targetSchema,
      kindNames: [KIND_NAMES.target!],
      example: EXAMPLES.target,
      description: 'Landscaper Target: where deploy items go (named like a Keelson cluster)',
      // The config is how Landscaper reaches the cluster: a kubeconfig, a service account's token.
      credentials: { fields: [['spec', 'config']], audience: 'domain-admins', what: 'Target credentials' },
    },
    context: { schema: contextSchema, kindNames: [KIND_NAMES.context!], example: EXAMPLES.context, description: 'Landscaper Context: shared settings of the installations in a namespace' },
  },
});
