/**
 * Capact's Implementation choice at scale: 10,000 interface requests against
 * a Hub of 1,000 Implementations (100 Interfaces × 10) under a merged policy
 * of 200 rules (Global and Action, merged once), in a fresh process.
 *
 * The Hub is generated as OCF manifests and loaded with `loadHub`, so the
 * choice runs on the same data shapes as real Hub content: Implementations
 * carry attributes and `requires` groups (some aliased, satisfied only by
 * injection), rules mix exact-revision, path-only and `cap.*` keys, and
 * their oneOf items constrain by path regex, attributes and requires.
 *
 * Figures: `capact.10k.s` (target ≤ 1 s), `capact.hub.load.ms`.
 */
import { createRng } from './generator';
import { figure, registerBenchmark, round } from './registry';

const INTERFACES = 100;
const IMPLS_PER_INTERFACE = 10;
const REQUESTS = 10_000;

function generate() {
  // Seeded: the same Hub and requests on every run.
  const rnd = createRng(42).next;
  const manifests: unknown[] = [];
  const ifacePath = (i: number) => `cap.interface.bench.group${i % 10}.iface${i}.install`;
  const attrs = ['cap.attribute.cloud.provider.gcp', 'cap.attribute.cloud.provider.aws', 'cap.attribute.infra.kind.managed', 'cap.attribute.infra.kind.self-hosted'];
  const types = ['cap.type.bench.creds.gcp', 'cap.type.bench.creds.aws', 'cap.type.bench.storage.helm', 'cap.core.type.platform.kubernetes'];
  for (const a of attrs) manifests.push({ ocfVersion: '0.0.1', kind: 'Attribute', revision: '0.1.0', metadata: { prefix: a.slice(0, a.lastIndexOf('.')), name: a.slice(a.lastIndexOf('.') + 1) } });
  for (const t of types) manifests.push({ ocfVersion: '0.0.1', kind: 'Type', revision: '0.1.0', metadata: { prefix: t.slice(0, t.lastIndexOf('.')), name: t.slice(t.lastIndexOf('.') + 1) }, spec: { jsonSchema: { value: '{}' } } });
  // Existing TypeInstances: GCP credentials and Helm storage (AWS credentials do not exist).
  manifests.push({ id: 'ti-gcp', typeRef: { path: types[0], revision: '0.1.0' }, latestResourceVersion: { resourceVersion: 1, spec: { value: {} } } });
  manifests.push({ id: 'ti-helm', typeRef: { path: types[2], revision: '0.1.0' }, latestResourceVersion: { resourceVersion: 1, spec: { value: {} } } });
  for (let i = 0; i < INTERFACES; i++) {
    const path = ifacePath(i);
    manifests.push({ ocfVersion: '0.0.1', kind: 'Interface', revision: '0.1.0', metadata: { prefix: path.slice(0, path.lastIndexOf('.')), name: 'install' }, spec: { input: {}, output: {} } });
    for (let j = 0; j < IMPLS_PER_INTERFACE; j++) {
      const vendor = ['gcp', 'aws', 'bitnami', 'terraform', 'helm'][j % 5]!;
      const impl = `cap.implementation.${vendor}.iface${i}.v${j}`;
      const requiresType = types[Math.floor(rnd() * types.length)]!;
      manifests.push({
        ocfVersion: '0.0.1',
        kind: 'Implementation',
        revision: `0.${1 + (j % 3)}.0`,
        metadata: {
          prefix: impl.slice(0, impl.lastIndexOf('.')),
          name: impl.slice(impl.lastIndexOf('.') + 1),
          attributes: { [attrs[j % attrs.length]!]: { revision: '0.1.0' } },
        },
        spec: {
          appVersion: '1.0.0',
          implements: [{ path, revision: '0.1.0' }],
          requires: {
            [requiresType.slice(0, requiresType.lastIndexOf('.'))]: {
              [rnd() < 0.5 ? 'oneOf' : 'allOf']: [{ name: requiresType.slice(requiresType.lastIndexOf('.') + 1), revision: '0.1.0', ...(rnd() < 0.3 ? { alias: `a${j}` } : {}) }],
            },
          },
          imports: [],
          action: { runnerInterface: 'cap.interface.runner.helm.install', args: {} },
        },
      });
    }
  }
  // 200 rules: an exact-revision rule for each of the 100 Interfaces, a path-only rule for 99 of them, and cap.*.
  const rules: unknown[] = [];
  for (let i = 0; i < 100; i++) {
    const vendor = ['gcp', 'aws', 'bitnami', 'terraform', 'helm'][i % 5];
    rules.push({
      interface: { path: ifacePath(i), revision: '0.1.0' },
      oneOf: [
        { implementationConstraints: { attributes: [{ path: attrs[i % attrs.length] }], requires: [{ path: types[0], revision: '0.1.0' }] }, inject: { requiredTypeInstances: [{ id: 'ti-gcp' }] } },
        { implementationConstraints: { path: `cap.implementation.${vendor}.iface${i}` } },
        { implementationConstraints: {} },
      ],
    });
    if (i < 99) rules.push({ interface: { path: ifacePath(i) }, oneOf: [{ implementationConstraints: { attributes: [{ path: attrs[(i + 1) % attrs.length] }] } }] });
  }
  rules.push({ interface: { path: 'cap.*' }, oneOf: [{ implementationConstraints: { requires: [{ path: types[3] }] } }, { implementationConstraints: {} }] });
  const global = { interface: { default: { inject: { requiredTypeInstances: [{ id: 'ti-helm', description: 'Helm storage' }] } }, rules: rules.slice(0, 150) } };
  const action = { interface: { rules: rules.slice(150) } };
  const requests = Array.from({ length: REQUESTS }, () => {
    const i = Math.floor(rnd() * INTERFACES);
    return { interface: rnd() < 0.5 ? { path: ifacePath(i), revision: '0.1.0' } : { path: ifacePath(i) } };
  });
  return { manifests, global, action, requests };
}

registerBenchmark({
  name: 'capact',
  description: 'Capact Implementation choice: 10,000 requests, a Hub of 1,000 Implementations, a 200-rule merged policy',
  measures: {
    async choose() {
      const { chooseImplementation, loadHub, mergePolicies, parsePolicy } = await import('../server/engine/capact');
      const g = generate();
      let t = performance.now();
      const { hub, errors } = loadHub(g.manifests);
      const loadMs = performance.now() - t;
      if (errors.length) throw new Error(`hub: ${errors[0]!.message}`);
      const global = parsePolicy(g.global);
      const action = parsePolicy(g.action);
      if (!global.policy || !action.policy) throw new Error(`policy: ${[...global.errors, ...action.errors][0]?.message}`);
      const merged = mergePolicies({ global: global.policy, action: action.policy });
      const rules = merged.interface?.rules?.length ?? 0;
      // One warm-up pass over a few requests so the figure is the steady state, not JIT start-up.
      for (const r of g.requests.slice(0, 200)) chooseImplementation(hub, merged, r);
      let chosen = 0;
      t = performance.now();
      for (const r of g.requests) if (chooseImplementation(hub, merged, r).implementation) chosen++;
      const seconds = (performance.now() - t) / 1000;
      const implementations = Object.values(hub.implementations).reduce((n, revs) => n + revs.length, 0);
      return { seconds, loadMs, chosen, rules, implementations };
    },
  },
  async run(ctx) {
    const run = await ctx.inChild('choose');
    const r = run.result;
    ctx.note(`${r.implementations} Implementations, ${r.rules} merged rules, ${REQUESTS} requests: ${r.chosen} chose an Implementation; peak ${round(run.maxRssMiB, 0)} MiB`);
    return [figure('capact.10k.s', round(Number(r.seconds), 3)), figure('capact.hub.load.ms', round(Number(r.loadMs), 1))];
  },
});
