/**
 * Requests and responses of tenants' registered resources. Secret material
 * (a secret's value, a certificate's private key) is accepted on write and
 * returned only with `reveal`, to owners and admins of the tenant.
 */
import { z } from 'zod';
import { QUANTITY_MESSAGE, QUANTITY_RE } from '../engine/model/quantity';
import { RESOURCE_KINDS } from '../repo/resources.types';

const pem = z.string().min(1).max(64 * 1024).regex(/-----BEGIN [A-Z ]+-----/, 'must be PEM text (-----BEGIN …-----)');
const hostname = z
  .string()
  .max(253)
  .regex(/^(?=.{1,253}$)([a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?)(\.[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?)+$/i, 'must be a domain name such as shop.example.com');

/** Each kind's registration body in Keelson's own, flat shape (what is stored: secret fields apart, sealed). */
export const RESOURCE_SPECS = {
  ca: z.object({ ca: pem.describe('The CA certificate (PEM)') }).strict(),
  certificate: z.object({ domain: hostname, cert: pem.describe('The certificate chain (PEM)'), key: pem.describe('The private key (PEM): stored sealed') }).strict(),
  domain: z.object({ domain: hostname.describe('Unique across tenants') }).strict(),
  port: z.object({ port: z.number().int().min(1).max(65535).describe('Unique across tenants') }).strict(),
  secret: z.object({ value: z.string().min(1).max(64 * 1024).describe('Stored sealed (AES-256-GCM)') }).strict(),
  volume: z
    .object({
      items: z.number().int().min(1).max(1024).optional().describe('How many subvolumes (Axebow #Data_Volume)'),
      size: z.union([z.number().positive(), z.string().regex(QUANTITY_RE, QUANTITY_MESSAGE)]).describe('e.g. "10Gi"'),
      // Keelson's persistent/volatile, and the document's replicated/single.
      type: z.enum(['persistent', 'volatile', 'replicated', 'single']).default('persistent'),
      provider: z.string().min(1).max(253).optional().describe('CSI provider, as named by the platform'),
    })
    .strict(),
} as const;

/**
 * Each kind's `#ResourceData` (Axebow §5.10.5): what `{data: …}` holds.
 * Scalars for the kinds that have one value; objects as the flat shape.
 */
export const RESOURCE_DATA = {
  ca: RESOURCE_SPECS.ca.shape.ca,
  certificate: RESOURCE_SPECS.certificate,
  domain: hostname.describe('Unique across tenants'),
  port: RESOURCE_SPECS.port.shape.port,
  secret: RESOURCE_SPECS.secret.shape.value,
  volume: RESOURCE_SPECS.volume,
} as const;

/** The field a one-value kind's data is stored under in the flat shape. */
export const DATA_FIELD: Partial<Record<(typeof RESOURCE_KINDS)[number], string>> = { ca: 'ca', domain: 'domain', port: 'port', secret: 'value' };

const resourceMeta = z.record(z.string().max(253), z.string().max(4096)).describe('Optional dictionary of values (#Resource meta)');
/** A selector of the environment (§5.11): a stack program, checked when saved. */
const resourceSelector = z.array(z.unknown()).max(1024).describe('Optional selector of the environment: a stack program of literals, "$.root.path" references and "::op" operators');

/** Each kind's `#ResourceSpec` body (§5.10.2): `{data, meta?, selector?}`. */
export const RESOURCE_DOCUMENT_BODIES = Object.fromEntries(
  RESOURCE_KINDS.map((k) => [k, z.object({ data: RESOURCE_DATA[k], meta: resourceMeta.optional(), selector: resourceSelector.optional() }).strict()]),
) as { [K in (typeof RESOURCE_KINDS)[number]]: z.ZodObject<{ data: (typeof RESOURCE_DATA)[K]; meta: z.ZodOptional<typeof resourceMeta>; selector: z.ZodOptional<typeof resourceSelector> }> };

export const resourceKind = z.enum(RESOURCE_KINDS);

/** Where secret data stands in an answer that does not reveal it. */
export const SEALED_DATA = '<sealed: reveal=true shows it to owners and admins>';

/** A registered resource as Axebow's `#Resource` (§5.10.5), with Keelson's own fields beside it. */
export const resourceOutput = z.object({
  id: z.object({ name: z.string(), kind: resourceKind, parent: z.object({ name: z.string(), kind: z.literal('tenant') }) }),
  spec: z.object({ data: z.unknown().describe(`The kind's #ResourceData; secret material reads "${SEALED_DATA}" unless revealed`) }),
  meta: z.record(z.string(), z.string()).optional(),
  selector: z.array(z.unknown()).optional(),
  status: z.object({
    clusters: z.record(z.string(), z.boolean()).describe('Clusters whose environments hold services using it'),
    requested: z.record(z.string(), z.number()).describe('Services using it, per account'),
    environment: z.record(z.string(), z.number()).describe('Services using it, per account/environment'),
  }),
  tenant: z.string(),
  kind: resourceKind,
  name: z.string(),
  /** The kind holds secret material; `secret` carries it only when revealed to someone who may see it. */
  hasSecret: z.boolean(),
  secret: z.string().optional(),
  createdBy: z.string(),
  createdAt: z.date(),
  updatedAt: z.date(),
});
export type ResourceView = z.infer<typeof resourceOutput>;

/** A resource and the services that use it (a claim label `<kind>:<name>`), each with its environment (`account/environment`; null: none named). */
export const resourceUseOutput = z.object({
  name: z.string(),
  usedIn: z.array(z.object({ service: z.string(), environment: z.string().nullable() })),
});
export type ResourceUse = z.infer<typeof resourceUseOutput>;

/** Every resource of a tenant, by kind (every kind present, perhaps empty), names in order. */
export const resourcesByKindOutput = z.object(Object.fromEntries(RESOURCE_KINDS.map((k) => [k, z.array(resourceUseOutput)])) as Record<(typeof RESOURCE_KINDS)[number], z.ZodArray<typeof resourceUseOutput>>);
export type ResourcesByKind = z.infer<typeof resourcesByKindOutput>;

/** Axebow's `usedports`: the port numbers the tenant owns, in order; `ports` says which resource each is and who uses it. */
export const usedPortsOutput = z.object({
  usedports: z.array(z.number().int()),
  ports: z.array(resourceUseOutput.extend({ port: z.number().int() })),
});
export type UsedPorts = z.infer<typeof usedPortsOutput>;
