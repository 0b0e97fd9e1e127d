/**
 * Tenants' registered resources (Axebow §5.10): CA certificates,
 * certificates, domains, ports, secrets and volumes. Ports and domains are
 * unique across all tenants (`claim`, a unique key such as `port:30080`).
 * Secret material is stored sealed (`sealed`), never in `spec`.
 */
export const RESOURCE_KINDS = ['ca', 'certificate', 'domain', 'port', 'secret', 'volume'] as const;
export type ResourceKind = (typeof RESOURCE_KINDS)[number];

export interface ResourceRow {
  id: number;
  tenantId: number;
  kind: string;
  name: string;
  /** The non-secret part, as registered. */
  spec: Record<string, unknown>;
  /** Sealed secret material (a secret's value, a certificate's key); null when the kind has none. */
  sealed: string | null;
  /** Platform-wide unique key (ports, domains); null for kinds without one. */
  claim: string | null;
  createdBy: string;
  createdAt: Date;
  updatedAt: Date;
}

export interface ResourceRepository {
  list(tenantId: number, kind?: string): Promise<ResourceRow[]>;
  get(tenantId: number, kind: string, name: string): Promise<ResourceRow | undefined>;
  /** `name-taken` when the tenant has it already; `claim-taken` when another resource (any tenant) holds the unique key. */
  add(input: Omit<ResourceRow, 'id' | 'createdAt' | 'updatedAt'>): Promise<ResourceRow | 'name-taken' | 'claim-taken'>;
  update(id: number, change: Pick<ResourceRow, 'spec' | 'sealed' | 'claim'>): Promise<ResourceRow | 'claim-taken' | undefined>;
  remove(id: number): Promise<void>;
  removeForTenant(tenantId: number): Promise<void>;
}
