/**
 * Helm's Deployment Manager in Keelson's envelope. A `deployment` object
 * holds a DM configuration (`{imports?, resources: [{name, type,
 * properties?}]}`) and, inline, the files it imports — templates, their
 * `.schema` files, helpers — as DM's client bundled them (the CLI's
 * `keelson expand` reads them beside a configuration; the editor keeps them
 * in the object). The expand stage (engine/dm/stage.ts) turns its Kubernetes
 * primitives into instances on the deployment's cluster.
 *
 * A bare configuration (no kind) is recognised and pointed at the
 * deployment envelope rather than failing as an object without a kind.
 */
import { z } from 'zod';
import type { Diagnostic } from '../../diagnostics';
import { objectRef } from '../../diagnostics';
import { expandDeployment, type JsonObject } from '../../dm';
import { metadataSchema } from './aptomi';
import { defineSource, metadataIdentity, type CheckedObject } from './types';

export const DM_KINDS = ['deployment'] as const;

function isConfiguration(doc: Readonly<Record<string, unknown>>): boolean {
  return doc.kind === undefined && doc.apiVersion === undefined && Array.isArray(doc.resources);
}

const resource = z
  .object({
    name: z.string().min(1).max(253).describe('Resource name, unique in the configuration'),
    type: z.string().min(1).max(2000).describe('An imported template (its import name), or a primitive type such as a Kubernetes kind'),
    properties: z.unknown().optional(),
  })
  .loose();

export const deploymentSchema = z
  .object({
    kind: z.string().describe('Object kind: deployment'),
    metadata: metadataSchema,
    target: z.string().regex(/^(?:[a-zA-Z][\w-]{0,63}\/)?[a-zA-Z][\w-]{0,63}$/, 'must be a Keelson cluster: "name" or "system/name"').describe('The Keelson cluster its Kubernetes primitives go to'),
    k8sNamespace: z
      .string()
      .regex(/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/, 'must be a Kubernetes namespace name')
      .optional()
      .describe("Kubernetes namespace of the primitives without one; default: the cluster's default namespace"),
    configuration: z
      .object({
        imports: z.array(z.union([z.string(), z.object({ path: z.string(), name: z.string().optional() }).loose()])).optional(),
        resources: z.array(resource).max(1000),
        outputs: z.unknown().optional(),
      })
      .loose()
      .describe('The DM configuration: resources, and the imports it names'),
    validateSchema: z
      .boolean()
      .optional()
      .describe("Validate properties against each template's .schema and apply its defaults (default true). false is DM's deployed behaviour, for templates whose schemas are wrong"),
    imports: z
      .record(z.string().min(1).max(500), z.union([z.string().max(1024 * 1024), z.object({ content: z.string().max(1024 * 1024), path: z.string().min(1).max(2000) }).strict()]))
      .optional()
      .describe('The files the configuration imports, by import name: templates (.jinja, .py), their .schema files, helpers'),
  })
  .strict();

export type Deployment = z.output<typeof deploymentSchema>;

/** DM's environment for a deployment's templates. */
export function deploymentEnv(namespace: string, name: string): Record<string, string> {
  return { deployment: name, project: namespace };
}

/**
 * A deployment that does not expand is refused at save, with DM's words.
 * Python templates are not run here — a save must not wait for an
 * interpreter — but everything up to them is checked (their schemas too);
 * what they produce is checked when the deployment resolves.
 */
function checkDeployment(o: CheckedObject): Diagnostic[] {
  const d = o.spec as Deployment;
  const r = expandDeployment({ config: d.configuration as JsonObject, imports: d.imports ?? {} }, deploymentEnv(o.namespace, o.name), { python: 'defer', validateSchema: d.validateSchema });
  const pos = o.locate?.(['configuration']) ?? o.pos;
  return r.errors.map((e) => ({ code: 'schema' as const, severity: 'error' as const, message: e.message, object: objectRef(o.kind, o.namespace, o.name), file: o.file, ...pos }));
}

const EXAMPLE = `kind: deployment
metadata:
  namespace: main
  name: my-deployment
target: k8s-example
configuration:
  imports: [frontend.jinja]
  resources:
    - name: frontend
      type: frontend.jinja
      properties:
        replicas: 2
imports:
  frontend.jinja: |
    resources:
    - name: {{ env['name'] }}-service
      type: Service
      properties:
        apiVersion: v1
        kind: Service
        metadata: {name: {{ env['name'] }}}
        spec:
          ports: [{port: 80}]
          selector: {app: {{ env['name'] }}}
    - name: {{ env['name'] }}-rc
      type: ReplicationController
      properties:
        apiVersion: v1
        kind: ReplicationController
        metadata: {name: {{ env['name'] }}}
        spec:
          replicas: {{ properties['replicas'] }}
          selector: {app: {{ env['name'] }}}
          template:
            metadata: {labels: {app: {{ env['name'] }}}}
            spec:
              containers: [{name: web, image: nginx, ports: [{containerPort: 80}]}]
`;

export const DM = defineSource({
  name: 'dm',
  title: 'Deployment Manager',
  recognises: (doc) => doc.apiVersion === undefined && typeof doc.kind === 'string' && doc.kind.toLowerCase() === 'deployment',
  identify: metadataIdentity,
  kinds: {
    deployment: {
      schema: deploymentSchema,
      example: EXAMPLE,
      description: 'Deployment Manager deployment: a configuration expanded from templates; its Kubernetes primitives are deployed',
      check: checkDeployment,
    },
  },
});

/** Bare DM configurations: recognised, and pointed at the deployment envelope. */
export const DM_CONFIGURATION = defineSource({
  name: 'dm-configuration',
  title: 'Deployment Manager',
  recognises: isConfiguration,
  identify: () => ({ kind: 'configuration' }),
  kinds: {},
  unsupported: 'a bare configuration; wrap it in a deployment object (kind: deployment, with configuration: and the files it imports under imports:)',
});
