/**
 * Requests and responses of tenants' registered resources. Secret material
 * (a secret's value, a certificate's private key) is accepted on write and
 * returned only with `reveal`, to owners and admins of the tenant.
 */
import { z } from 'zod';
import { QUANTITY_MESSAGE, QUANTITY_RE } from '../engine/plan/quantity';
import { RESOURCE_KINDS } from '../repo/resources.types';

const pem = z.string().min(1).max(64 * 1024).regex(/-----BEGIN [A-Z ]+-----/, 'must be PEM text (-----BEGIN …-----)');
const hostname = z
  .string()
  .max(253)
  .regex(/^(?=.{1,253}$)([a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?)(\.[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?)+$/i, 'must be a domain name such as shop.example.com');

/** Each kind's registration body. */
export const RESOURCE_SPECS = {
  ca: z.object({ ca: pem.describe('The CA certificate (PEM)') }).strict(),
  certificate: z.object({ domain: hostname, cert: pem.describe('The certificate chain (PEM)'), key: pem.describe('The private key (PEM): stored sealed') }).strict(),
  domain: z.object({ domain: hostname.describe('Unique across tenants') }).strict(),
  port: z.object({ port: z.number().int().min(1).max(65535).describe('Unique across tenants') }).strict(),
  secret: z.object({ value: z.string().min(1).max(64 * 1024).describe('Stored sealed (AES-256-GCM)') }).strict(),
  volume: z
    .object({
      size: z.union([z.number().positive(), z.string().regex(QUANTITY_RE, QUANTITY_MESSAGE)]).describe('e.g. "10Gi"'),
      type: z.enum(['persistent', 'volatile']).default('persistent'),
    })
    .strict(),
} as const;

export const resourceKind = z.enum(RESOURCE_KINDS);

export const resourceOutput = z.object({
  tenant: z.string(),
  kind: resourceKind,
  name: z.string(),
  spec: z.record(z.string(), z.unknown()),
  /** The kind holds secret material; `secret` carries it only when revealed to someone who may see it. */
  hasSecret: z.boolean(),
  secret: z.string().optional(),
  createdBy: z.string(),
  createdAt: z.date(),
  updatedAt: z.date(),
});
export type ResourceView = z.infer<typeof resourceOutput>;
