/**
 * Capact: the Hub (OCF manifests — Interface, Implementation, Type,
 * Attribute — accepted as written, `ocfVersion` and all), the Local Hub's
 * TypeInstances, and Keelson's own `policy` (the Global policy is
 * `system/global`) and `action` (a request for an Interface, with its
 * Action policy). Keelson's envelope (`kind` + `metadata.namespace/name`)
 * works for every kind.
 *
 * An OCF manifest is named by its path and revision, `cap.interface.x.y:0.1.0`
 * (Capact's own notation), and lives in `system` unless its metadata names
 * a namespace: the Hub is the platform's. Schemas check the envelope and
 * the fields the policy engine reads; `check` runs the engine's own reading
 * (server/engine/capact) so a manifest or policy it cannot use is an error
 * at save time, at its line.
 */
import { z } from 'zod';
import { loadHub, parsePolicy } from '../../capact';
import type { Diagnostic } from '../../diagnostics';
import { objectRef } from '../../diagnostics';
import { CODE_TYPE_NAMES } from '../../state/code';
import { defineSource, type CheckedObject, type Identity } from './types';

const SYSTEM = 'system';
const OCF_KINDS: Record<string, string> = { interface: 'Interface', implementation: 'Implementation', type: 'Type', attribute: 'Attribute' };
/** Every kind of this source, lower-case. */
export const CAPACT_KINDS = ['interface', 'implementation', 'type', 'attribute', 'typeinstance', 'policy', 'action'] as const;

const identifier = z.string().regex(/^[a-zA-Z][a-zA-Z0-9_-]{0,63}$/, 'must start with a letter and hold only letters, digits, "_" or "-" (at most 64)');
const semver = z.string().regex(/^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/, 'must be a semantic version such as 0.1.0');
export const CAP_PATH_RE = /^cap(?:\.[A-Za-z0-9][A-Za-z0-9_-]*)+$/;
const capPath = z.string().max(200).regex(CAP_PATH_RE, 'must be a Capact path such as cap.interface.database.postgresql.install');
const typeRef = z.object({ path: capPath, revision: semver }).strict();

/** `prefix.name` of an OCF manifest, or a Keelson name that is already a full path. */
function ocfPath(md: Record<string, unknown>): string | undefined {
  if (typeof md.path === 'string') return md.path;
  const prefix = typeof md.prefix === 'string' ? md.prefix : undefined;
  const name = typeof md.name === 'string' ? md.name : undefined;
  if (!name) return undefined;
  return prefix && !name.startsWith('cap.') ? `${prefix}.${name}` : name;
}

/** The Hub's GraphQL exports carry no kind: the path says what a manifest is. */
function kindFromPath(path: string | undefined): string | undefined {
  if (!path) return undefined;
  if (path.startsWith('cap.interface.')) return 'Interface';
  if (path.startsWith('cap.implementation.')) return 'Implementation';
  if (path.startsWith('cap.type.') || path.startsWith('cap.core.type.')) return 'Type';
  if (path.startsWith('cap.attribute.')) return 'Attribute';
  return undefined;
}

const metadataOf = (doc: Readonly<Record<string, unknown>>) => (typeof doc.metadata === 'object' && doc.metadata !== null ? doc.metadata : {}) as Record<string, unknown>;

function capactIdentity(doc: Readonly<Record<string, unknown>>): Identity {
  const md = metadataOf(doc);
  const rawKind =
    typeof doc.kind === 'string' ? doc.kind : doc.typeRef !== undefined && doc.id !== undefined ? 'TypeInstance' : doc.revision !== undefined ? kindFromPath(ocfPath(md)) : undefined;
  const kind = rawKind?.toLowerCase();
  const namespace = typeof md.namespace === 'string' ? md.namespace : SYSTEM;
  if (kind && kind in OCF_KINDS) {
    const path = ocfPath(md);
    const revision = typeof doc.revision === 'string' ? doc.revision : undefined;
    return { kind: rawKind, namespace, name: path && revision ? `${path}:${revision}` : path };
  }
  if (kind === 'typeinstance') return { kind: rawKind, namespace, name: typeof md.name === 'string' ? md.name : typeof doc.id === 'string' ? doc.id : undefined };
  return { kind: rawKind, namespace: typeof md.namespace === 'string' ? md.namespace : undefined, name: typeof md.name === 'string' ? md.name : undefined };
}

/** OCF manifests, Capact's bare TypeInstances, and Keelson-envelope objects of Capact's kinds. */
function recognises(doc: Readonly<Record<string, unknown>>): boolean {
  if (doc.ocfVersion !== undefined) return true;
  if (typeof doc.apiVersion === 'string' && doc.apiVersion.startsWith('core.capact.io/')) return true;
  if (doc.kind === undefined && doc.id !== undefined && doc.typeRef !== undefined) return true;
  if (doc.kind === undefined && doc.revision !== undefined && kindFromPath(ocfPath(metadataOf(doc))) !== undefined) return true;
  return doc.apiVersion === undefined && typeof doc.kind === 'string' && (CAPACT_KINDS as readonly string[]).includes(doc.kind.toLowerCase());
}

const ocfMetadata = z
  .object({
    prefix: z.string().max(200).regex(/^cap(?:\.[A-Za-z0-9][A-Za-z0-9_-]*)*$/, 'must be a Capact path prefix such as cap.interface.database').optional(),
    name: z.string().min(1).max(200),
    namespace: identifier.optional(),
  })
  .loose();

/** An OCF manifest: the envelope is checked here, the rest by the engine's Hub loader (`check`). */
function ocfSchema(kind: string) {
  return z
    .object({
      ocfVersion: z.string().optional(),
      // The Hub's exports leave it out; the path says what the manifest is.
      kind: z.string().optional().describe(`Object kind: ${kind}`),
      revision: semver.describe('Revision of this manifest (semantic version)'),
      metadata: ocfMetadata.refine((md) => ocfPath(md as Record<string, unknown>) !== undefined && CAP_PATH_RE.test(ocfPath(md as Record<string, unknown>)!), {
        message: 'prefix and name must make a Capact path such as cap.interface.database.postgresql.install',
      }),
      spec: z.record(z.string(), z.unknown()).optional(),
    })
    .loose();
}

const keelsonMetadata = z.object({ namespace: identifier, name: identifier }).strict();

/**
 * A TypeInstance in Keelson's envelope (`metadata.name` is its id) or as
 * Capact's Local Hub exports it (`id`, `latestResourceVersion`).
 */
const typeInstanceSchema = z
  .object({
    kind: z.string().optional().describe('Object kind: typeinstance (absent in Capact exports)'),
    metadata: z
      .object({ namespace: identifier, name: z.string().min(1).max(200).regex(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/, 'must be a TypeInstance id') })
      .strict()
      .optional(),
    id: z.string().min(1).max(200).optional().describe('Capact export: the TypeInstance id'),
    typeRef,
    value: z.unknown().optional().describe('The TypeInstance value (credentials, connection details): shown whole to domain admins only'),
    latestResourceVersion: z.unknown().optional(),
    backend: z.unknown().optional(),
  })
  .loose()
  .refine((t) => t.metadata !== undefined || t.id !== undefined, { message: 'a TypeInstance needs metadata.name (its id) or an id' });

const policySchema = z
  .object({
    kind: z.string().describe('Object kind: policy'),
    metadata: keelsonMetadata,
    interface: z.unknown().optional().describe('interface.default.inject and interface.rules (Capact policy)'),
    typeInstance: z.unknown().optional().describe('typeInstance.rules: storage backends (Capact policy)'),
    merge: z
      .object({
        order: z
          .array(z.enum(['ACTION', 'GLOBAL', 'WORKFLOW']))
          .min(1)
          .max(3)
          .refine((o) => new Set(o).size === o.length, 'names each kind of policy once')
          .optional()
          .describe('Priority of the policies, highest first (default ACTION, GLOBAL, WORKFLOW)'),
        mode: z.enum(['documented', 'capact-compat']).optional().describe("documented: higher priority wins everywhere; capact-compat: Capact's code"),
      })
      .strict()
      .optional()
      .describe('How the Global policy (system/global) is merged with Action and Workflow-step policies'),
  })
  .strict();

/** The merge settings of the Global policy object, with Capact's defaults. */
export function mergeSettings(globalSpec: unknown): { order: ('ACTION' | 'GLOBAL' | 'WORKFLOW')[]; mode: 'documented' | 'capact-compat' } {
  const m = (globalSpec as { merge?: { order?: ('ACTION' | 'GLOBAL' | 'WORKFLOW')[]; mode?: 'documented' | 'capact-compat' } } | undefined)?.merge;
  return { order: m?.order ?? ['ACTION', 'GLOBAL', 'WORKFLOW'], mode: m?.mode ?? 'documented' };
}

const actionSchema = z
  .object({
    kind: z.string().describe('Object kind: action'),
    metadata: keelsonMetadata,
    interface: z.object({ path: capPath, revision: semver.optional() }).strict().describe('The Interface requested'),
    target: z
      .string()
      .regex(/^[a-zA-Z][a-zA-Z0-9_-]{0,63}(?:\.[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?)?$/, 'must be "cluster" or "cluster.kubernetes-namespace"')
      .describe('Where the chosen Implementation is deployed: a cluster, and optionally its Kubernetes namespace'),
    policy: z.unknown().optional().describe('The Action policy (same shape as a policy object)'),
    input: z
      .object({
        parameters: z.record(z.string(), z.unknown()).optional(),
        typeInstances: z.array(z.object({ name: z.string().min(1), id: z.string().min(1) }).strict()).optional(),
      })
      .strict()
      .optional(),
  })
  .strict();

/**
 * What Keelson deploys for an Implementation: `spec.keelson.code`, a code
 * component's code (its params are templates rendered for each claim).
 * Capact's own action (an Argo workflow) is not run by Keelson.
 */
const keelsonPart = z.object({ code: z.object({ type: z.enum(CODE_TYPE_NAMES), params: z.record(z.string(), z.unknown()).nullish() }).strict() }).strict();

/** What the Hub loader makes of one manifest, as diagnostics at the object. */
function checkManifest(o: CheckedObject): Diagnostic[] {
  const ref = objectRef(o.kind, o.namespace, o.name);
  const { errors } = loadHub([toHubManifest(o.kind, o.spec as Record<string, unknown>)]);
  const out: Diagnostic[] = errors.map((e) => ({ code: 'schema' as const, severity: 'error' as const, message: e.message.replace(/^manifest 0: /, ''), object: ref, file: o.file, ...o.pos }));
  const keelson = ((o.spec as { spec?: { keelson?: unknown } }).spec ?? {}).keelson;
  if (o.kind === 'implementation' && keelson !== undefined) {
    const r = keelsonPart.safeParse(keelson);
    if (!r.success) {
      for (const issue of r.error.issues) {
        const path = ['spec', 'keelson', ...issue.path.map((p) => (typeof p === 'number' ? p : String(p)))];
        out.push({ code: 'schema', severity: 'error', message: `${path.join('.')}: ${issue.message}`, object: ref, path, file: o.file, ...(o.locate ? o.locate(path) : o.pos) });
      }
    }
  }
  return out;
}

function checkPolicyPart(o: CheckedObject, body: unknown, base: (string | number)[]): Diagnostic[] {
  const { errors } = parsePolicy(body ?? {});
  return errors.map((e) => {
    const path = [...base, ...(e.path ?? [])];
    return { code: 'schema' as const, severity: 'error' as const, message: e.message, object: objectRef(o.kind, o.namespace, o.name), path: path.map((p) => (typeof p === 'number' ? p : String(p))), file: o.file, ...(o.locate ? o.locate(path) : o.pos) };
  });
}

/**
 * A stored Capact object as the engine's Hub loader reads it: OCF manifests
 * as written, Keelson-envelope TypeInstances in Capact's Local Hub shape.
 */
export function toHubManifest(kind: string, spec: Record<string, unknown>): Record<string, unknown> {
  if (kind === 'typeinstance' && spec.metadata !== undefined && spec.id === undefined) {
    const md = spec.metadata as { name: string };
    return { id: md.name, typeRef: spec.typeRef, latestResourceVersion: { resourceVersion: 1, spec: { value: spec.value ?? null } }, ...(spec.backend ? { backend: spec.backend } : {}) };
  }
  // The loader pins the canonical lower-case kind; the Hub reader expects Capact's spelling.
  if (kind === 'typeinstance') return { ...spec, kind: 'TypeInstance' };
  if (kind in OCF_KINDS) {
    const md = { ...(spec.metadata as Record<string, unknown>) };
    const path = ocfPath(md)!;
    // The loader reads prefix + name; a Keelson name that is already a full path is split back.
    if (!md.prefix && path.includes('.')) Object.assign(md, { prefix: path.slice(0, path.lastIndexOf('.')), name: path.slice(path.lastIndexOf('.') + 1) });
    return { ...spec, ocfVersion: spec.ocfVersion ?? '0.0.1', kind: OCF_KINDS[kind], metadata: md };
  }
  return spec;
}

const EXAMPLES = {
  interface: `ocfVersion: 0.0.1
revision: 0.1.0
kind: Interface
metadata:
  prefix: cap.interface.database.postgresql
  name: install
spec:
  input:
    parameters: {}
  output:
    typeInstances:
      postgresql:
        typeRef:
          path: cap.type.database.postgresql.config
          revision: 0.1.0
`,
  implementation: `ocfVersion: 0.0.1
revision: 0.1.0
kind: Implementation
metadata:
  prefix: cap.implementation.bitnami.postgresql
  name: install
spec:
  appVersion: "10,11,12"
  implements:
    - path: cap.interface.database.postgresql.install
      revision: 0.1.0
  requires:
    cap.core.type.platform:
      oneOf:
        - name: kubernetes
          revision: 0.1.0
  imports: []
  action:
    runnerInterface: cap.interface.runner.helm.install
    args: {}
`,
  type: `ocfVersion: 0.0.1
revision: 0.1.0
kind: Type
metadata:
  prefix: cap.type.database.postgresql
  name: config
spec:
  jsonSchema:
    value: |-
      {"type": "object", "properties": {"host": {"type": "string"}}}
`,
  attribute: `ocfVersion: 0.0.1
revision: 0.1.0
kind: Attribute
metadata:
  prefix: cap.attribute.cloud.provider
  name: gcp
`,
  typeinstance: `kind: typeinstance
metadata:
  namespace: system
  name: gcp-sa-main
typeRef:
  path: cap.type.gcp.auth.service-account
  revision: 0.1.0
value: {}
`,
  policy: `kind: policy
metadata:
  namespace: system
  name: global
interface:
  rules:
    - interface:
        path: cap.*
      oneOf:
        - implementationConstraints:
            requires:
              - path: cap.core.type.platform.kubernetes
        - implementationConstraints: {}
`,
  action: `kind: action
metadata:
  namespace: main
  name: my-database
interface:
  path: cap.interface.database.postgresql.install
target: my-cluster
`,
};

export const CAPACT = defineSource({
  name: 'capact',
  title: 'Capact',
  recognises,
  identify: capactIdentity,
  kinds: {
    interface: { schema: ocfSchema('Interface'), kindNames: ['Interface'], example: EXAMPLES.interface, description: 'Capact Interface: what can be asked for, with its inputs and outputs', systemOnly: true, check: checkManifest },
    implementation: {
      schema: ocfSchema('Implementation'),
      kindNames: ['Implementation'],
      example: EXAMPLES.implementation,
      description: 'Capact Implementation of Interfaces, with its requirements and attributes',
      systemOnly: true,
      check: checkManifest,
    },
    type: { schema: ocfSchema('Type'), kindNames: ['Type'], example: EXAMPLES.type, description: 'Capact Type: the JSON Schema of TypeInstances and parameters', systemOnly: true, check: checkManifest },
    attribute: { schema: ocfSchema('Attribute'), kindNames: ['Attribute'], example: EXAMPLES.attribute, description: 'Capact Attribute that Implementations carry and policies select by', systemOnly: true, check: checkManifest },
    typeinstance: {
      schema: typeInstanceSchema,
      kindNames: ['TypeInstance'],
      example: EXAMPLES.typeinstance,
      description: 'Capact TypeInstance: a value of a Type (credentials, storage) that policies inject',
      systemOnly: true,
      check: checkManifest,
      // Every place the Hub reads a value from (Keelson's form, Capact's export, a bare `spec`), and the versions Capact keeps beside it.
      credentials: {
        fields: [
          ['value'],
          ['spec', 'value'],
          ['latestResourceVersion', 'spec', 'value'],
          ['firstResourceVersion', 'spec', 'value'],
          ['previousResourceVersion', 'spec', 'value'],
          ['resourceVersions', '*', 'spec', 'value'],
        ],
        audience: 'domain-admins',
        what: 'TypeInstance values',
      },
    },
    policy: {
      schema: policySchema,
      example: EXAMPLES.policy,
      description: 'Capact policy: which Implementations Interfaces resolve to (system/global is the Global policy)',
      systemOnly: true,
      check: (o) => checkPolicyPart(o, { interface: (o.spec as Record<string, unknown>).interface, typeInstance: (o.spec as Record<string, unknown>).typeInstance }, []),
    },
    action: {
      schema: actionSchema,
      example: EXAMPLES.action,
      description: 'Capact Action: a request for an Interface, with its own Action policy',
      check: (o) => ((o.spec as Record<string, unknown>).policy === undefined ? [] : checkPolicyPart(o, (o.spec as Record<string, unknown>).policy, ['policy'])),
    },
  },
});

export type CapactPolicyObject = z.output<typeof policySchema>;
export type CapactActionObject = z.output<typeof actionSchema>;
