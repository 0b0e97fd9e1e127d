/**
 * The shapes of the schema's JSON columns (schema.ts declares them with
 * `$type`). They are defined here, below the repositories whose contracts
 * speak them (repo/estate.types.ts, repo/tenants.types.ts re-export them),
 * so the schema needs nothing from the layers above it.
 */

/** Per-dimension limits; an absent dimension is unlimited. Quantities as written (numbers or Kubernetes quantities). */
export interface Marks {
  vcpu?: number | string;
  memory?: number | string;
  storage?: number | string;
  instances?: number;
  services?: number;
}

/** One selector rule: a stack program and what it stands for (reported when it fails). */
export interface SelectorRule {
  reason: string;
  sel: unknown[];
}

/** Axebow's tenant rules: four lists of selectors run at fixed points of placing a service. */
export interface TenantRules {
  selectEnvironmentService?: SelectorRule[];
  selectAcceptEnvironmentService?: SelectorRule[];
  validateEnvironmentResource?: SelectorRule[];
  validateEnvironmentUser?: SelectorRule[];
}
