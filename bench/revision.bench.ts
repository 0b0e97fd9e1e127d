/**
 * Planning a revision on the large benchmark policy (bench/generator.ts:
 * 1,000 bundles, 20,000 claims, about 7,500 instances, platform instances
 * shared by thousands of claims).
 *
 * The edit is the common one: one claim changes, here by moving to another
 * service, so it detaches from every instance of its old service's tree and
 * attaches to the new one's (users all carry the same labels, so a label
 * edit would change no instance). The new state comes from
 * `ResolveSession.updateClaims`, as the server computes it; the applied
 * state is a JSON copy of the old one, as the server loads it from storage,
 * so no instance is shared by identity and every claim list is compared.
 * Aptomi's diff on a state of this size took 0.19–0.33 s (reference
 * aptomi.md §9), for a whole-state diff from empty.
 *
 * Figures: revision.large.ms (median planRevision time), revision.large.actions
 * (actions in that plan), revision.large.shared_ms (the same with both states
 * straight from one session: unchanged instances are the same objects) and
 * revision.large.from_empty_ms (planning the whole large state from nothing).
 */
import type { Cluster } from '../server/engine/model/kinds';
import { planRevision } from '../server/engine/plan';
import { claimsOf, ResolveSession, type DesiredState, type PolicyObjectInput } from '../server/engine/resolve';
import { describeInput, generatePolicy, toPolicyInput } from './generator';
import { figure, median, registerBenchmark, round, type Figure } from './registry';

const REPEATS = 5;

/** The generated cluster, priced and with marks, so cost and quota do their full work. */
function pricedClusters(objects: readonly PolicyObjectInput[]) {
  return objects
    .filter((o) => o.kind === 'cluster')
    .map((o) => ({
      namespace: o.namespace,
      name: o.name,
      spec: {
        ...(o.spec as Cluster),
        pricing: { currency: 'EUR', vcpu: 20, memory: 4, storage: 0.1 },
        marks: { vcpu: 10_000, memory: '40Ti', instances: 10_000 },
        defaults: { cpu: '100m', memory: '128Mi', replicas: 1 },
      } as Cluster,
    }));
}

function time<T>(f: () => T): { ms: number; value: T } {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const t = performance.now();
  const value = f();
  return { ms: performance.now() - t, value };
}

registerBenchmark({
  name: 'revision',
  description: 'plan a revision (diff, order, cost, quota) after one claim changed on the large preset',
  measures: {
    large() {
      const g = generatePolicy('large');
      const input = toPolicyInput(g);
      const clusters = pricedClusters(input.objects);
      const session = new ResolveSession(input, { trace: false });
      const before = session.state();
      const stored = JSON.parse(JSON.stringify(before)) as DesiredState;

      // Move one claim to another service.
      const claims = claimsOf(input.objects);
      const c = claims[4_242 % claims.length]!;
      const services = g.stats.services;
      const current = Number(c.spec.service.replace(/^.*service-/, ''));
      const moved = { ...c, spec: { ...c.spec, service: `service-${(current + 500) % services}` } };
      const after = session.updateClaims({ upserts: [moved] });

      const times: number[] = [];
      let plan = planRevision({ before: stored, after, clusters });
      for (let i = 0; i < REPEATS; i++) {
        const r = time(() => planRevision({ before: stored, after, clusters }));
        times.push(r.ms);
        plan = r.value;
      }
      const shared: number[] = [];
      for (let i = 0; i < REPEATS; i++) shared.push(time(() => planRevision({ before, after, clusters })).ms);
      const fromEmpty: number[] = [];
      let fromEmptyActions = 0;
      for (let i = 0; i < 3; i++) {
        const r = time(() => planRevision({ before: null, after, clusters }));
        fromEmpty.push(r.ms);
        fromEmptyActions = r.value.actions.length;
      }
      let memberships = 0;
      let widest = 0;
      for (const inst of after.instances) {
        memberships += inst.claims.length;
        widest = Math.max(widest, inst.claims.length);
      }
      const k = plan.counts;
      return {
        medianMs: median(times),
        maxMs: Math.max(...times),
        sharedMs: median(shared),
        fromEmptyMs: median(fromEmpty),
        fromEmptyActions,
        actions: plan.actions.length,
        counts: `${k.create} create, ${k.update} update, ${k.delete} delete, ${k['attach-claim']} attach, ${k['detach-claim']} detach`,
        steps: plan.steps.length,
        changedClaims: plan.changedClaims.length,
        instances: after.instances.length,
        memberships,
        widest,
        input: describeInput(g),
      };
    },
  },
  async run(ctx) {
    await ctx.emitPreset('large');
    const run = await ctx.inChild('large');
    const r = run.result;
    const n = (key: string) => Number(r[key]);
    ctx.table([
      ['preset', 'plan ms (median)', 'max ms', 'shared ms', 'from empty ms', 'actions', 'instances', 'claim memberships', 'widest', 'input'],
      ['large', round(n('medianMs'), 1), round(n('maxMs'), 1), round(n('sharedMs'), 1), round(n('fromEmptyMs'), 1), n('actions'), n('instances'), n('memberships'), n('widest'), String(r.input)],
    ]);
    ctx.note(`one claim moved: ${String(r.counts)}; ${n('steps')} steps; ${n('changedClaims')} changed claims; from empty: ${n('fromEmptyActions')} actions`);
    const figures: Figure[] = [
      figure('revision.large.ms', round(n('medianMs'), 1)),
      figure('revision.large.actions', n('actions')),
      figure('revision.large.shared_ms', round(n('sharedMs'), 1)),
      figure('revision.large.from_empty_ms', round(n('fromEmptyMs'), 1)),
    ];
    return figures;
  },
});
