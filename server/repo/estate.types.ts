/**
 * The estate of tenants (Axebow's accounts and deployment environments):
 * an account groups environments and caps their marks; an environment is
 * a tenant's slice of one Keelson cluster (a target), with marks (quotas),
 * labels and metadata that selectors read. `estate.ts` keeps it on drizzle,
 * `memory-estate.ts` in one process; both run `estate.test.ts`.
 */
import type { Marks } from '../db/columns';

export type { Marks };

export interface AccountRow {
  id: number;
  tenantId: number;
  name: string;
  marks: Marks;
  labels: Record<string, string>;
  createdBy: string;
  createdAt: Date;
}

export interface EnvironmentRow {
  id: number;
  accountId: number;
  name: string;
  /** The Keelson cluster (target) it deploys to: `system/name`. */
  cluster: string;
  /** Kubernetes namespace on the cluster; null: each policy namespace's own. */
  k8sNamespace: string | null;
  marks: Marks;
  labels: Record<string, string>;
  /** Free-form metadata for selectors (Axebow's environment meta). */
  meta: unknown;
  createdBy: string;
  createdAt: Date;
}

export interface EstateRepository {
  accounts(tenantId: number): Promise<AccountRow[]>;
  account(tenantId: number, name: string): Promise<AccountRow | undefined>;
  /** Undefined when the tenant already has an account of that name. */
  addAccount(input: Omit<AccountRow, 'id' | 'createdAt'>): Promise<AccountRow | undefined>;
  updateAccount(id: number, change: { marks?: Marks; labels?: Record<string, string> }): Promise<AccountRow | undefined>;
  /** Removes the account and its environments. */
  removeAccount(id: number): Promise<void>;
  /** Removes every account (and environment) of a tenant: the tenant is going. */
  removeForTenant(tenantId: number): Promise<void>;
  environments(accountId: number): Promise<EnvironmentRow[]>;
  environment(accountId: number, name: string): Promise<EnvironmentRow | undefined>;
  /** Undefined when the account already has an environment of that name. */
  addEnvironment(input: Omit<EnvironmentRow, 'id' | 'createdAt'>): Promise<EnvironmentRow | undefined>;
  updateEnvironment(id: number, change: { marks?: Marks; labels?: Record<string, string>; meta?: unknown }): Promise<EnvironmentRow | undefined>;
  removeEnvironment(id: number): Promise<void>;
}
