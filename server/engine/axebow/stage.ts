/**
 * Choosing an environment for a service (Axebow §5.11, with the decisions
 * in reference/axebow.md §4). Pure: the caller gathers each candidate's
 * facts (capacity after placement, resources the service needs) and the
 * JSON snapshots selectors read; this module runs the tenant's four rule
 * sets and decides.
 *
 * Per candidate environment:
 *  1. capacity — the service must fit the environment's marks;
 *  2. `selectEnvironmentService` — every rule passes: the environment is
 *     `accepted`; otherwise `selectAcceptEnvironmentService` — every rule
 *     passes: it is `requiring` (the revision waits for an explicit
 *     acceptance); otherwise it is excluded. An empty first set passes; an
 *     empty second set passes nothing (acceptance stays manual);
 *  3. every resource the service names exists, is free, passes
 *     `validateEnvironmentResource` (which reads its `meta`), and then its
 *     own selector, if it has one (Axebow §5.12.5: `$.this` is the
 *     resource, `$.environment` the candidate);
 *  4. the acting user passes `validateEnvironmentUser`.
 * Among the survivors: `accepted` before `requiring`, then the most vCPU
 * left free after placement (unlimited first), then name, then id. A named
 * environment is the only candidate: its failures are reported, never
 * replaced by another environment.
 *
 * A selector that fails to run counts as false, and its reason is kept.
 *
 * This is Axebow's stage, and none of ENGINE_STAGES: a service is written
 * as an Aptomi claim whose `target` label names its environment, which
 * Aptomi's resolve stage turns into instances; placement chooses that
 * environment when the service is created, on the resolver's threads
 * (server/resolver/stored-work.ts).
 */
import { compileSelector, evaluateSelector, type SelectorError } from '../lang/selector';
import { unitDeadline } from '../host-clock';
import type { Budget } from '../lang/budget';

export type RuleSet = 'selectEnvironmentService' | 'selectAcceptEnvironmentService' | 'validateEnvironmentResource' | 'validateEnvironmentUser';
export const RULE_SETS: readonly RuleSet[] = ['selectEnvironmentService', 'selectAcceptEnvironmentService', 'validateEnvironmentResource', 'validateEnvironmentUser'];

export interface Rule {
  reason: string;
  sel: unknown[];
}
export type Rules = Partial<Record<RuleSet, Rule[]>>;

/** The context roots each rule set may read (`this` is the tenant). */
export const HOOK_ROOTS: Record<RuleSet, readonly string[]> = {
  selectEnvironmentService: ['this', 'environment', 'user', 'service'],
  selectAcceptEnvironmentService: ['this', 'environment', 'user', 'service'],
  validateEnvironmentResource: ['this', 'environment', 'user', 'resource'],
  validateEnvironmentUser: ['this', 'environment', 'user'],
};

export interface RuleProblem {
  set: RuleSet;
  index: number;
  /** Where in the rules document, e.g. `rules.validateEnvironmentUser[0].sel`. */
  path: string;
  message: string;
}

/**
 * The save-time check of a tenant's rules: every program compiles (known
 * operators, valid references, stack depths) and reads only the roots its
 * rule set provides, so a rule that could never work is refused when it is
 * written rather than excluding every environment later.
 */
export function checkRules(rules: Rules): RuleProblem[] {
  const out: RuleProblem[] = [];
  for (const set of RULE_SETS) {
    (rules[set] ?? []).forEach((rule, index) => {
      const path = `rules.${set}[${index}].sel`;
      const compiled = compileSelector(rule.sel);
      if (!compiled.ok) for (const e of compiled.errors) out.push({ set, index, path, message: e.message });
      for (const item of rule.sel) {
        if (typeof item !== 'string' || !item.startsWith('$.')) continue;
        const root = /^\$\.([A-Za-z_]\w*)/.exec(item)?.[1];
        if (root && !HOOK_ROOTS[set].includes(root) && ['this', 'environment', 'user', 'service', 'resource'].includes(root)) {
          out.push({ set, index, path, message: `${item}: ${set} has no $.${root} (it reads ${HOOK_ROOTS[set].map((r) => `$.${r}`).join(', ')})` });
        }
      }
    });
  }
  return out;
}

/** The roots a resource's own selector reads (Axebow's #Selector_Resource): the resource as `$.this`, and the environment weighed. */
export const RESOURCE_SELECTOR_ROOTS: readonly string[] = ['this', 'environment'];

/**
 * The save-time check of a resource's own selector, as checkRules() is of
 * a tenant's: it compiles, and reads only `$.this` and `$.environment`.
 */
export function checkResourceSelector(sel: unknown): string[] {
  const compiled = compileSelector(sel);
  const out = compiled.ok ? [] : compiled.errors.map((e) => e.message);
  for (const item of Array.isArray(sel) ? sel : []) {
    if (typeof item !== 'string' || !item.startsWith('$.')) continue;
    const root = /^\$\.([A-Za-z_]\w*)/.exec(item)?.[1];
    if (root && !RESOURCE_SELECTOR_ROOTS.includes(root) && ['user', 'service', 'resource'].includes(root)) {
      out.push(`${item}: a resource's selector has no $.${root} (it reads $.this, the resource, and $.environment)`);
    }
  }
  return out;
}

/** A resource the service names (a claim label `<kind>:<name>`), as the caller found it. */
export interface NeededResource {
  kind: string;
  name: string;
  /** The resource as `$.resource` sees it (and as `$.this` its own selector does); null when the tenant has none of that name. */
  info: Record<string, unknown> | null;
  /** The resource's own selector of the environments it may be used in; absent: any. */
  selector?: unknown[];
  /** Services other than this one holding an exclusive resource (port, domain, volume). */
  heldBy: string[];
}

export interface Candidate {
  id: number;
  /** `account/environment`. */
  name: string;
  /** `$.environment`. */
  info: Record<string, unknown>;
  /** Marks the service would take the environment over (empty: it fits). */
  over: { dimension: string; mark: number; usage: number }[];
  /** Millicores left free after placement; null when vCPU is unlimited there. */
  freeVcpuMillisAfter: number | null;
}

export interface SelectionInput {
  rules: Rules;
  /** `$.this`: the tenant. */
  tenant: Record<string, unknown>;
  /** `$.user`: the acting user in the tenant. */
  user: Record<string, unknown>;
  /** `$.service` per candidate (its cost depends on where it lands). */
  service: (c: Candidate) => Record<string, unknown>;
  resources: NeededResource[];
  /** Every environment in scope; a request naming its environment passes only that one. */
  candidates: Candidate[];
}

export type Outcome = 'accepted' | 'requiring' | 'excluded';

export interface SelectionRow {
  environment: string;
  outcome: Outcome;
  /** Why it was excluded or needs acceptance; empty for a clean `accepted`. */
  reasons: string[];
  /** vCPU left free after placement (cores); null: unlimited. */
  freeVcpuAfter: number | null;
}

export interface Selection {
  chosen: { environment: string; id: number; outcome: 'accepted' | 'requiring' } | null;
  /** Every candidate, in the order considered (the chosen one first). */
  table: SelectionRow[];
}

function describe(e: SelectorError | undefined, fallback: string | undefined): string {
  return e?.message ?? fallback ?? 'false';
}

/** Runs one rule set; the reasons of the rules that did not pass (empty: all passed). */
function failing(rules: readonly Rule[] | undefined, ctx: Record<string, unknown>, absent: boolean, what: string, budget: Budget | undefined): string[] {
  if (!rules || rules.length === 0) return absent ? [] : [`${what}: no rule admits it`];
  const out: string[] = [];
  for (const rule of rules) {
    const r = evaluateSelector(rule.sel, ctx, absent, budget);
    if (!r.value) out.push(r.error ? `${what} "${rule.reason}" could not run: ${describe(r.error, r.reason)}` : `${what} "${rule.reason}" is false`);
  }
  return out;
}

const EXCLUSIVE = new Set(['port', 'domain', 'volume']);

function judge(input: SelectionInput, c: Candidate, budget: Budget | undefined): { outcome: Outcome; reasons: string[] } {
  const reasons: string[] = [];
  if (c.over.length > 0) {
    return { outcome: 'excluded', reasons: c.over.map((o) => `over its ${o.dimension} mark: ${o.usage} needed, ${o.mark} allowed`) };
  }
  const base = { this: input.tenant, environment: c.info, user: input.user };
  const serviceCtx = { ...base, service: input.service(c) };
  let outcome: Outcome = 'accepted';
  const select = failing(input.rules.selectEnvironmentService, serviceCtx, true, 'selectEnvironmentService', budget);
  if (select.length > 0) {
    const requiring = failing(input.rules.selectAcceptEnvironmentService, serviceCtx, false, 'selectAcceptEnvironmentService', budget);
    if (requiring.length > 0) return { outcome: 'excluded', reasons: [...select, ...requiring] };
    outcome = 'requiring';
    reasons.push(...select.map((s) => `needs explicit acceptance: ${s}`));
  }
  for (const r of input.resources) {
    if (!r.info) return { outcome: 'excluded', reasons: [...reasons, `${r.kind} ${r.name} is not registered in the tenant`] };
    if (EXCLUSIVE.has(r.kind) && r.heldBy.length > 0) return { outcome: 'excluded', reasons: [...reasons, `${r.kind} ${r.name} is held by ${r.heldBy.join(', ')}`] };
    const bad = failing(input.rules.validateEnvironmentResource, { ...base, resource: r.info }, true, `validateEnvironmentResource (${r.kind} ${r.name})`, budget);
    if (bad.length > 0) return { outcome: 'excluded', reasons: [...reasons, ...bad] };
    const own = refusedBySelector(r, c.info, budget);
    if (own) return { outcome: 'excluded', reasons: [...reasons, own] };
  }
  const user = failing(input.rules.validateEnvironmentUser, base, true, 'validateEnvironmentUser', budget);
  if (user.length > 0) return { outcome: 'excluded', reasons: [...reasons, ...user] };
  return { outcome, reasons };
}

/** Why the resource's own selector keeps it out of the environment, naming the resource and the selector; undefined when it admits it. */
function refusedBySelector(r: NeededResource, environment: Record<string, unknown>, budget: Budget | undefined): string | undefined {
  if (r.selector === undefined) return undefined;
  const run = evaluateSelector(r.selector, { this: r.info ?? {}, environment }, true, budget);
  if (run.value) return undefined;
  const text = JSON.stringify(r.selector);
  const shown = text.length > 200 ? `${text.slice(0, 200)}…` : text;
  return run.error ? `${r.kind} ${r.name}'s selector ${shown} could not run: ${describe(run.error, run.reason)}` : `${r.kind} ${r.name}'s selector ${shown} is false here`;
}

const free = (c: Candidate) => (c.freeVcpuMillisAfter === null ? Number.POSITIVE_INFINITY : c.freeVcpuMillisAfter);
const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

export function selectEnvironment(input: SelectionInput): Selection {
  // One placement's rules share the host's time (host-clock.ts): a rule out of it counts as false, saying so.
  const deadline = unitDeadline();
  const budget = deadline ? { deadline } : undefined;
  const judged = input.candidates.map((c) => ({ c, ...judge(input, c, budget) }));
  const rank = (o: Outcome) => (o === 'accepted' ? 0 : o === 'requiring' ? 1 : 2);
  judged.sort((a, b) => rank(a.outcome) - rank(b.outcome) || free(b.c) - free(a.c) || byName(a.c.name, b.c.name) || a.c.id - b.c.id);
  const best = judged[0];
  const chosen = best && best.outcome !== 'excluded' ? { environment: best.c.name, id: best.c.id, outcome: best.outcome } : null;
  return {
    chosen,
    table: judged.map((j) => ({
      environment: j.c.name,
      outcome: j.outcome,
      reasons: j.reasons,
      freeVcpuAfter: j.c.freeVcpuMillisAfter === null ? null : j.c.freeVcpuMillisAfter / 1000,
    })),
  };
}
