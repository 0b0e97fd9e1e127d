/**
 * The Aptomi source's kinds: one zod schema per kind. The same schemas
 * validate writes on the server, feed the CLI, and become the JSON Schemas
 * that the Monaco editor uses (see `jsonSchemaForKind` in ../kinds), so
 * editor and server agree.
 *
 * Field names follow Aptomi's YAML exactly (including its all-lower-case keys
 * such as `defaultnamespace`), so Aptomi users can bring their files as is.
 */
import { z } from 'zod';
import { QUANTITY_MESSAGE, QUANTITY_RE, quantityInRange, type QuantityScale } from '../quantity';
import { CODE_TYPE_NAMES, describeCodeTypes } from '../../state/code';
import { checkBundle, checkExpressionsAndTemplates } from './aptomi-checks';
import { defineSource, metadataIdentity } from './types';

/** Aptomi identifiers: names, namespaces, label names. */
export const IDENTIFIER_RE = /^[a-zA-Z][a-zA-Z0-9_-]{0,63}$/;
/** `name` or `namespace/name`. */
export const REFERENCE_RE = /^(?:[a-zA-Z][a-zA-Z0-9_-]{0,63}\/)?[a-zA-Z][a-zA-Z0-9_-]{0,63}$/;

export const SYSTEM_NAMESPACE = 'system';

const identifier = z
  .string()
  .regex(IDENTIFIER_RE, 'must start with a letter and hold only letters, digits, "_" or "-" (at most 64)');
const reference = z
  .string()
  .regex(REFERENCE_RE, 'must be "name" or "namespace/name"');

/**
 * Aptomi stores labels as strings; YAML scalars of any type are accepted and
 * turned into their string form (`true` → "true", `3` → "3").
 */
const labelValue = z.union([z.string(), z.number(), z.boolean()]).transform((v) => String(v));
export const labelsSchema = z.record(z.string().regex(IDENTIFIER_RE, 'is not a valid label name'), labelValue);

/** An expression in a criteria list; YAML may type `true` as a boolean. */
const expression = z.union([z.string(), z.number(), z.boolean()]).transform((v) => String(v));

export const criteriaSchema = z
  .object({
    'require-all': z.array(expression).nullish(),
    'require-any': z.array(expression).nullish(),
    'require-none': z.array(expression).nullish(),
  })
  .strict()
  .describe('All of require-all, none of require-none, and (if listed) any of require-any must hold');

export const labelOperationsSchema = z
  .object({
    set: z.record(z.string(), labelValue).nullish(),
    /** Aptomi writes `remove: {label: ""}`; only the names matter. */
    remove: z.record(z.string(), z.unknown()).nullish(),
  })
  .strict()
  .describe('Labels to set, then labels to remove');

export const metadataSchema = z
  .object({
    namespace: identifier.describe('Namespace of the object'),
    name: identifier.describe('Name, unique per kind and namespace'),
  })
  .strict();

const envelope = <K extends string>(kind: K) => ({
  kind: z.string().describe(`Object kind: ${kind}`),
  metadata: metadataSchema,
});

/** Free-form parameter trees (Helm values, discovery); string leaves are templates. */
const paramTree = z.record(z.string(), z.unknown());

export const componentSchema = z
  .object({
    name: identifier.describe('Component name, unique in the bundle'),
    criteria: criteriaSchema.nullish(),
    code: z
      .object({
        type: z.enum(CODE_TYPE_NAMES).describe(describeCodeTypes()),
        params: paramTree.nullish().describe('Parameters; string values are Go text/templates'),
      })
      .strict()
      .nullish(),
    service: reference.nullish().describe('Service this component consumes: "name" or "namespace/name"'),
    interface: z
      .string()
      .max(220)
      .regex(/^cap(?:\.[A-Za-z0-9][A-Za-z0-9_-]*)+(?::\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.-]+)?)?$/, 'must be a Capact Interface: cap.interface.<path>[:<revision>]')
      .nullish()
      .describe('Capact Interface whose Implementation (chosen by the Global policy) gives this component its code: cap.interface.<path>[:<revision>]'),
    discovery: paramTree.nullish().describe('Values announced to other components; strings are templates'),
    dependencies: z.array(identifier).nullish().describe('Components of this bundle that must come first'),
  })
  .strict()
  .superRefine((c, ctx) => {
    const n = (c.code ? 1 : 0) + (c.service ? 1 : 0) + (c.interface ? 1 : 0);
    if (n !== 1) {
      ctx.addIssue({
        code: 'custom',
        message: n === 0 ? 'a component needs code, service or interface' : 'a component has one of code, service or interface, not several',
        path: [],
      });
    }
  });

export const bundleSchema = z
  .object({
    ...envelope('bundle'),
    labels: labelsSchema.nullish(),
    components: z.array(componentSchema).nullish(),
  })
  .strict();

export const contextSchema = z
  .object({
    name: identifier,
    criteria: criteriaSchema.nullish(),
    'change-labels': labelOperationsSchema.nullish(),
    allocation: z
      .object({
        bundle: reference.describe('Bundle to instantiate (same namespace as the service)'),
        keys: z.array(z.union([z.string(), z.number(), z.boolean()]).transform(String)).nullish()
          .describe('Templates; claims with equal keys share one instance'),
      })
      .strict(),
  })
  .strict();

export const serviceSchema = z
  .object({
    ...envelope('service'),
    'change-labels': labelOperationsSchema.nullish(),
    contexts: z.array(contextSchema).nullish(),
  })
  .strict();

export const claimSchema = z
  .object({
    ...envelope('claim'),
    user: z.string().min(1).describe('User on whose behalf the service is claimed'),
    service: reference.describe('Service to claim: "name" or "namespace/name"'),
    labels: labelsSchema.nullish(),
  })
  .strict();

export const ruleSchema = z
  .object({
    ...envelope('rule'),
    weight: z.number().int().min(0).describe('Rules run by weight, then name'),
    criteria: criteriaSchema.nullish(),
    actions: z
      .object({
        'change-labels': labelOperationsSchema.nullish(),
        claim: z.enum(['allow', 'reject']).nullish(),
        ingress: z.enum(['allow', 'reject']).nullish(),
      })
      .strict()
      .refine((a) => a['change-labels'] != null || a.claim != null || a.ingress != null, {
        message: 'a rule needs at least one action (change-labels, claim or ingress)',
      }),
  })
  .strict();

const roleNamespaces = z.string().min(1).describe('"*" or a comma-separated list of namespaces');
export const aclRuleSchema = z
  .object({
    ...envelope('aclrule'),
    weight: z.number().int().min(0).nullish(),
    criteria: criteriaSchema.nullish(),
    actions: z
      .object({
        'add-role': z
          .object({
            'domain-admin': roleNamespaces.nullish(),
            'namespace-admin': roleNamespaces.nullish(),
            'service-consumer': roleNamespaces.nullish(),
          })
          .strict(),
      })
      .strict(),
  })
  .strict();

/**
 * A Kubernetes quantity in a cluster's marks or defaults: a YAML number (cores
 * for CPU, bytes for memory and storage) or quantity text such as "8",
 * "8000m", "32Gi". Checked here, so a bad value is a validation message at
 * the field rather than a silent zero in a cost report.
 */
const quantity = (scale: QuantityScale, what: string) =>
  z
    .union([z.number().nonnegative({ error: QUANTITY_MESSAGE }), z.string().regex(QUANTITY_RE, QUANTITY_MESSAGE)], {
      error: QUANTITY_MESSAGE,
    })
    .refine((q) => quantityInRange(q, scale), { message: 'is too large' })
    .describe(what);

const nonNegative = (what: string) => z.number().nonnegative({ error: 'must be a non-negative number' }).describe(what);
const count = (what: string) =>
  z.number().int({ error: 'must be a whole number' }).nonnegative({ error: 'must not be negative' }).describe(what);

/** Keelson extension: monthly prices used by revision cost estimates. */
export const clusterPricingSchema = z
  .object({
    currency: z.string().min(1).max(16).default('EUR').describe('Currency of the prices, e.g. EUR or USD (ISO 4217 code recommended); default EUR'),
    vcpu: nonNegative('Price per vCPU (1000m of requested CPU) per month').optional(),
    memory: nonNegative('Price per GiB of requested memory per month').optional(),
    storage: nonNegative('Price per GiB of requested storage (persistent volumes) per month').optional(),
  })
  .strict()
  .describe('Monthly prices for cost estimates in revisions (Keelson extension)');

/** Keelson extension: quotas (Axebow "marks"); an absent dimension is unlimited. */
export const clusterMarksSchema = z
  .object({
    vcpu: quantity('milli', 'CPU quota: cores as a number, or a quantity such as "8" or "8000m"').optional(),
    memory: quantity('unit', 'Memory quota: a quantity such as "32Gi" (a plain number means bytes)').optional(),
    storage: quantity('unit', 'Storage quota: a quantity such as "500Gi" (a plain number means bytes)').optional(),
    instances: count('Most code instances (deployed components) the cluster may run').optional(),
  })
  .strict()
  .describe('Quotas checked by every revision: requested resources after the revision must stay within them (Keelson extension)');

/** Keelson extension: what an instance is assumed to request when its parameters say nothing. */
export const clusterDefaultsSchema = z
  .object({
    cpu: quantity('milli', 'CPU per replica when the code names none, e.g. "100m"').optional(),
    memory: quantity('unit', 'Memory per replica when the code names none, e.g. "128Mi"').optional(),
    storage: quantity('unit', 'Storage per replica of a helm chart whose parameters name none, e.g. "1Gi"').optional(),
    replicas: count('Replicas of a helm chart whose parameters name none (default 1)').optional(),
  })
  .strict()
  .describe('Per-replica resources assumed for cost and quota when an instance does not state them (Keelson extension)');

/** A policy namespace, or a pattern where `*` matches any run of characters (`team-*`, `*`). */
const namespacePattern = z
  .string()
  .regex(/^[a-zA-Z0-9_*-]{1,64}$/, 'must be a namespace or a pattern with "*" (letters, digits, "_", "-", "*")');
/** A Kubernetes namespace or pattern; `{namespace}` stands for the policy namespace. */
const kubernetesNamespacePattern = z
  .string()
  .regex(/^(?:[a-z0-9*-]|\{namespace\}){1,80}$/, 'must be a Kubernetes namespace or a pattern with "*" or "{namespace}" (lower-case letters, digits, "-")');

/**
 * Keelson extension: which policy namespaces may target the cluster, and in
 * which Kubernetes namespaces. A namespace admin may accept a section only
 * where this admits it; otherwise a domain admin must.
 */
export const clusterAllowedNamespaceSchema = z.union([
  namespacePattern.describe('A policy namespace (or pattern) that may target the cluster, deploying into the Kubernetes namespace of its own name'),
  z
    .object({
      namespace: namespacePattern.describe('A policy namespace, or a pattern such as "team-*" or "*"'),
      kubernetes: z
        .array(kubernetesNamespacePattern)
        .min(1, { error: 'must list at least one Kubernetes namespace (leave it out for the one named like the policy namespace)' })
        .optional()
        .describe('Kubernetes namespaces it may deploy into ("*" patterns; "{namespace}" is the policy namespace); default ["{namespace}"]'),
    })
    .strict(),
]);

export const clusterSchema = z
  .object({
    ...envelope('cluster'),
    type: z.enum(['kubernetes']),
    config: z
      .object({
        defaultnamespace: z.string().nullish().describe('Kubernetes namespace used when the target names none'),
        local: z.boolean().nullish(),
        context: z.string().nullish(),
        kubeconfig: z.unknown().optional().describe('Secret: shown only to those who may manage the cluster'),
      })
      .strict()
      .nullish(),
    pricing: clusterPricingSchema.optional(),
    marks: clusterMarksSchema.optional(),
    defaults: clusterDefaultsSchema.optional(),
    allowedNamespaces: z
      .array(clusterAllowedNamespaceSchema)
      .optional()
      .describe('Policy namespaces that may target this cluster and their Kubernetes namespaces; absent: any (Keelson extension)'),
    chartRepositories: z
      .array(z.string().min(1).describe('A chart repository URL; "*" matches any run of characters'))
      .optional()
      .describe('Chart repositories helm code may use on this cluster without a domain admin; absent: any (Keelson extension)'),
  })
  .strict();

/** Aptomi objects carry no apiVersion; Keelson's own extensions may name a `keelson.*` one. */
function isAptomiEnvelope(doc: Readonly<Record<string, unknown>>): boolean {
  return doc.apiVersion === undefined || (typeof doc.apiVersion === 'string' && doc.apiVersion.startsWith('keelson.'));
}

/** Starting YAML for "New object", one per kind: valid as is, easy to adapt. */
const EXAMPLES = {
  bundle: `kind: bundle
metadata:
  namespace: main
  name: my-bundle
components:
  - name: app
    code:
      type: helm
      params:
        chartRepo: https://charts.example.com
        chartName: app
        replicas: 1
`,
  service: `kind: service
metadata:
  namespace: main
  name: my-service
contexts:
  - name: default
    allocation:
      bundle: my-bundle
`,
  claim: `kind: claim
metadata:
  namespace: main
  name: my-claim
user: alice
service: my-service
labels:
  env: dev
`,
  rule: `kind: rule
metadata:
  namespace: main
  name: my-rule
weight: 100
criteria:
  require-all:
    - env == 'dev'
actions:
  change-labels:
    set:
      target: my-cluster
`,
  aclrule: `kind: aclrule
metadata:
  namespace: system
  name: my-acl-rule
criteria:
  require-all:
    - team == 'ops'
actions:
  add-role:
    namespace-admin: main
`,
  cluster: `kind: cluster
metadata:
  namespace: system
  name: my-cluster
type: kubernetes
config:
  defaultnamespace: default
`,
};

export const APTOMI = defineSource({
  name: 'aptomi',
  title: 'Aptomi',
  recognises: isAptomiEnvelope,
  identify: metadataIdentity,
  kinds: {
    aclrule: {
      schema: aclRuleSchema,
      example: EXAMPLES.aclrule,
      description: 'Grants roles (domain-admin, namespace-admin, service-consumer) to users matching criteria',
      systemOnly: true,
      check: checkExpressionsAndTemplates,
    },
    bundle: {
      schema: bundleSchema,
      example: EXAMPLES.bundle,
      description: 'Components (code or consumed services) that make up an application',
      check: (o) => [...checkExpressionsAndTemplates(o), ...checkBundle(o)],
    },
    claim: { schema: claimSchema, example: EXAMPLES.claim, description: 'A user’s request for an instance of a service' },
    cluster: {
      schema: clusterSchema,
      example: EXAMPLES.cluster,
      description: 'A deployment target',
      systemOnly: true,
      credentials: { fields: [['config', 'kubeconfig']], audience: 'domain-admins', what: 'cluster credentials' },
    },
    rule: {
      schema: ruleSchema,
      example: EXAMPLES.rule,
      description: 'Changes labels or rejects claims when its criteria match',
      check: checkExpressionsAndTemplates,
    },
    service: {
      schema: serviceSchema,
      example: EXAMPLES.service,
      description: 'Exposes bundles through contexts chosen by criteria',
      check: checkExpressionsAndTemplates,
    },
  },
});

export type Bundle = z.output<typeof bundleSchema>;
export type Component = z.output<typeof componentSchema>;
export type Service = z.output<typeof serviceSchema>;
export type Context = z.output<typeof contextSchema>;
export type Claim = z.output<typeof claimSchema>;
export type Rule = z.output<typeof ruleSchema>;
export type AclRule = z.output<typeof aclRuleSchema>;
export type Cluster = z.output<typeof clusterSchema>;
export type ClusterPricing = z.output<typeof clusterPricingSchema>;
export type ClusterMarks = z.output<typeof clusterMarksSchema>;
export type ClusterDefaults = z.output<typeof clusterDefaultsSchema>;
export type ClusterAllowedNamespace = z.output<typeof clusterAllowedNamespaceSchema>;
export type Criteria = z.output<typeof criteriaSchema>;
export type LabelOperations = z.output<typeof labelOperationsSchema>;
