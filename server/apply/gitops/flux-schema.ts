/**
 * Schemas for the two Flux objects the gitops actuator writes, so a broken
 * object is caught when Keelson renders it rather than when Flux's
 * kustomize-controller rejects the whole sync (one bad object there stalls
 * every object in the same Kustomization).
 *
 * Written from Flux's documented API (helm-controller `helm.toolkit.fluxcd.io/v2`
 * HelmRelease, source-controller `source.toolkit.fluxcd.io/v1` HelmRepository):
 * the constraints are the ones their CRDs enforce (required fields, enums,
 * patterns, lengths, the chart/chartRef rule). Spec objects are strict because
 * apply with strict field validation (kubectl's default since Kubernetes 1.27)
 * rejects unknown fields, so a misspelt field is an error here too. Fields we
 * never write are accepted by name without checking their contents.
 */
import { z } from 'zod';

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
/** metav1.Duration as Flux's CRDs pattern-check it: `10m`, `1h30m`, `5m0s`, `1.5h`. */
const GO_DURATION = /^([0-9]+(\.[0-9]+)?(ms|s|m|h))+$/;
/** Flux's timeout fields do not allow hours. */
const GO_TIMEOUT = /^([0-9]+(\.[0-9]+)?(ms|s|m))+$/;
/** Kubernetes label value: ≤ 63 chars, alphanumeric at both ends. */
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

/** A string whose absence reads "is required" rather than zod's generic type message. */
const str = () => z.string({ error: (issue) => (issue.input === undefined ? 'is required' : 'must be a string') });

const subdomainName = str()
  .min(1, 'must not be empty')
  .max(253, 'must be at most 253 characters')
  .regex(DNS1123_SUBDOMAIN, 'must be a DNS-1123 subdomain (lowercase alphanumerics, "-" and ".")');
const namespaceName = str()
  .min(1, 'must not be empty')
  .max(63, 'must be at most 63 characters')
  .regex(DNS1123_LABEL, 'must be a DNS-1123 label (lowercase alphanumerics and "-")');
const interval = str().regex(GO_DURATION, 'must be a Go duration such as 10m or 1h30m');
const timeout = str().regex(GO_TIMEOUT, 'must be a Go duration in ms, s or m such as 5m');

const metadata = z.looseObject({
  name: subdomainName,
  namespace: namespaceName.optional(),
  labels: z
    .record(
      z.string().min(1),
      z.string().max(63, 'label values must be at most 63 characters').regex(LABEL_VALUE, 'must be a valid label value'),
    )
    .optional(),
  annotations: z.record(z.string().min(1), z.string()).optional(),
});

/** Unchecked but allowed spec field (documented by Flux, never written by Keelson). */
const passthrough = z.unknown().optional();

const crossNamespaceObjectReference = z.strictObject({
  apiVersion: z.string().optional(),
  kind: z.enum(['HelmRepository', 'GitRepository', 'Bucket']),
  name: str().min(1).max(253),
  namespace: str().min(1).max(63).optional(),
});

const helmChartTemplateSpec = z.strictObject({
  chart: str().min(1, 'is required').max(2048),
  version: z.string().optional(),
  sourceRef: crossNamespaceObjectReference,
  interval: interval.optional(),
  reconcileStrategy: z.enum(['ChartVersion', 'Revision']).optional(),
  valuesFiles: z.array(z.string()).optional(),
  ignoreMissingValuesFiles: z.boolean().optional(),
  verify: passthrough,
});

const helmChartTemplate = z.strictObject({
  metadata: z
    .strictObject({ labels: z.record(z.string(), z.string()).optional(), annotations: z.record(z.string(), z.string()).optional() })
    .optional(),
  spec: helmChartTemplateSpec,
});

const helmReleaseSpec = z
  .strictObject({
    chart: helmChartTemplate.optional(),
    chartRef: z
      .strictObject({
        apiVersion: z.string().optional(),
        kind: z.enum(['OCIRepository', 'HelmChart', 'ExternalArtifact']),
        name: z.string().min(1).max(253),
        namespace: z.string().min(1).max(63).optional(),
      })
      .optional(),
    interval,
    kubeConfig: passthrough,
    suspend: z.boolean().optional(),
    // Helm's own limit: release names end up in Secret names and labels.
    releaseName: z.string().min(1).max(53).optional(),
    targetNamespace: namespaceName.optional(),
    storageNamespace: namespaceName.optional(),
    dependsOn: passthrough,
    timeout: timeout.optional(),
    maxHistory: z.number().int().optional(),
    serviceAccountName: z.string().min(1).max(253).optional(),
    persistentClient: z.boolean().optional(),
    driftDetection: passthrough,
    install: passthrough,
    upgrade: passthrough,
    test: passthrough,
    rollback: passthrough,
    uninstall: passthrough,
    valuesFrom: passthrough,
    // Helm values are free-form, but must be a mapping (the chart's values.yaml root).
    values: z.record(z.string(), z.unknown()).optional(),
    postRenderers: passthrough,
    commonMetadata: passthrough,
  })
  .superRefine((spec, ctx) => {
    // The v2 CRD's CEL rule: exactly one way to find the chart.
    if ((spec.chart === undefined) === (spec.chartRef === undefined)) {
      ctx.addIssue({ code: 'custom', message: 'either chart or chartRef must be set (not both)', path: ['chart'] });
    }
  });

export const helmReleaseSchema = z.strictObject({
  apiVersion: z.literal('helm.toolkit.fluxcd.io/v2'),
  kind: z.literal('HelmRelease'),
  metadata,
  spec: helmReleaseSpec,
});

export const helmRepositorySchema = z.strictObject({
  apiVersion: z.literal('source.toolkit.fluxcd.io/v1'),
  kind: z.literal('HelmRepository'),
  metadata,
  spec: z
    .strictObject({
      url: str().regex(/^(http|https|oci):\/\/.+$/, 'must start with http://, https:// or oci://'),
      secretRef: passthrough,
      certSecretRef: passthrough,
      passCredentials: z.boolean().optional(),
      // Optional in v1: OCI repositories are not polled.
      interval: interval.optional(),
      insecure: z.boolean().optional(),
      timeout: timeout.optional(),
      suspend: z.boolean().optional(),
      accessFrom: passthrough,
      type: z.enum(['default', 'oci']).optional(),
      provider: z.enum(['generic', 'aws', 'azure', 'gcp']).optional(),
    })
    .superRefine((spec, ctx) => {
      // The type decides how source-controller talks to the URL, so they must agree.
      const oci = spec.url.startsWith('oci://');
      if (oci && spec.type !== 'oci') ctx.addIssue({ code: 'custom', message: 'an oci:// URL needs type: oci', path: ['type'] });
      if (!oci && spec.type === 'oci') ctx.addIssue({ code: 'custom', message: 'type oci needs an oci:// URL', path: ['url'] });
    }),
});

export type HelmRelease = z.infer<typeof helmReleaseSchema>;
export type HelmRepository = z.infer<typeof helmRepositorySchema>;

function formatIssues(error: z.ZodError): string[] {
  return error.issues.map((issue) => {
    const where = issue.path.map(String).join('.');
    return where ? `${where}: ${issue.message}` : issue.message;
  });
}

/**
 * Check a HelmRelease (v2) or HelmRepository (v1) object; returns one message
 * per problem (`path: message`), empty when the object is valid.
 */
export function validateFluxObject(obj: unknown): string[] {
  if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) return ['not an object'];
  const { kind, apiVersion } = obj as { kind?: unknown; apiVersion?: unknown };
  const schema = kind === 'HelmRelease' ? helmReleaseSchema : kind === 'HelmRepository' ? helmRepositorySchema : null;
  if (!schema) {
    return [`kind: expected HelmRelease or HelmRepository, got ${JSON.stringify(kind)} (apiVersion ${JSON.stringify(apiVersion)})`];
  }
  const parsed = schema.safeParse(obj);
  return parsed.success ? [] : formatIssues(parsed.error);
}
