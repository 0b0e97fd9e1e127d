/**
 * Deployment Manager templates under their budgets, each in a fresh process:
 * what an ordinary configuration costs with Jinja2 in the sandbox (a render
 * per resource, each a round trip to the sandbox process), how soon hostile
 * Jinja templates end and how much memory they may take on the way, and what
 * the Python sandbox's warm pool saves over booting Pyodide.
 *
 * Figures: `dm.jinja.render_200.ms` (a configuration of 200 templated
 * resources, expanded), `dm.jinja.hostile.max_ms` (the slowest of the hostile
 * templates to end in its budget error), `dm.jinja.hostile.rss_mib` (peak
 * resident memory over all of them), `dm.python.first.ms` (a first Python
 * template, boot included), `dm.python.warm.ms` (median of later ones, each
 * its own expansion of the same tenant).
 */
import { figure, median, registerBenchmark, round, type MeasureResult } from './registry';

const TEMPLATE = [
  'resources:',
  '{% for port in properties["ports"] %}',
  '- name: {{ env["name"] }}-svc-{{ port }}',
  '  type: Service',
  '  properties:',
  '    apiVersion: v1',
  '    kind: Service',
  '    metadata: {name: "{{ env["name"] }}-{{ port }}", labels: {app: "{{ env["name"]|lower }}"}}',
  '    spec: {ports: [{port: {{ port }}, targetPort: {{ port + 1000 }}}], selector: {app: "{{ env["name"] }}"}}',
  '{% endfor %}',
  '- name: {{ env["name"] }}-rc',
  '  type: ReplicationController',
  '  properties:',
  '    metadata: {name: "{{ env["name"] }}", annotations: {banner: "{{ ("=" * 20) ~ " " ~ env["name"]|upper }}"}}',
  '    spec: {replicas: {{ properties.get("replicas", 1) }}, image: "{{ properties["image"] }}"}',
].join('\n');

const HOSTILE = [
  "{{ ''|center(1000000000) }}",
  "{{ 'a' * 1000000000 }}",
  "{{ '%1000000000d' % 1 }}",
  '{{ 2 ** 1000000000 }}',
  `{% set l = [1] %}${'{% set l = [l, l] %}'.repeat(30)}{{ l }}`,
  '{% macro f(n) %}{% if n > 0 %}{{ f(n - 1) }}{{ f(n - 1) }}{% endif %}{% endmacro %}{{ f(40) }}',
  "{% set s = 'x' * 4000000 %}{% for i in range(100000) %}{% set t = s|upper %}{% endfor %}",
  "{% set s = 'a ' * 2000000 %}{% for i in range(100000) %}{{ s|title|length }}{% endfor %}",
  '{% for a in range(100000) %}{% for b in range(100000) %}{% endfor %}{% endfor %}',
  "{% include 't.jinja' %}{% include 't.jinja' %}",
  "{{ range(100000)|join('-' * 100) }}",
  "{% set l = [1] %}{% for i in range(40) %}{{ l.extend(l) }}{% endfor %}",
];


registerBenchmark({
  name: 'dm',
  description: 'DM templates: an ordinary Jinja configuration, hostile Jinja templates in their budgets, the Python sandbox warm and cold',
  measures: {
    async jinja() {
      const { expand } = await import('../server/engine/dm');
      (await import('../server/dm-python')).plugTemplateSandbox();
      const config = `resources:\n${Array.from({ length: 200 }, (_, i) => `- {name: app${i}, type: app.jinja, properties: {image: nginx, ports: [80, 443, 8080]}}`).join('\n')}\n`;
      const runs: number[] = [];
      for (let i = 0; i < 7; i++) {
        const t = performance.now();
        const r = expand({ config, imports: { 'app.jinja': TEMPLATE } });
        runs.push(performance.now() - t);
        if (r.errors.length) throw new Error(r.errors[0]!.message);
      }
      return { ms: median(runs.slice(2)) };
    },
    async hostile() {
      const { expand } = await import('../server/engine/dm');
      const { deadlineIn } = await import('../server/engine/lang/budget');
      (await import('../server/dm-python')).plugTemplateSandbox();
      // The sandbox booted first, as a server's is after its first template: the figure is the budgets', not Pyodide's start.
      expand({ config: 'resources:\n- {name: a, type: t.jinja}\n', imports: { 't.jinja': 'resources: []' } });
      let slowest = 0;
      for (const body of HOSTILE) {
        const src = `resources: []\n${body}`;
        const t = performance.now();
        // The 5 s a resolver thread grants a deployment's templates (server/resolver/session.ts).
        const r = expand({ config: 'resources:\n- {name: a, type: t.jinja}\n', imports: { 't.jinja': src } }, { deadline: deadlineIn(5000, () => performance.now()) });
        slowest = Math.max(slowest, performance.now() - t);
        if (r.errors[0]?.code !== 'limit') throw new Error(`${body}: ${r.errors[0]?.message ?? 'expanded'}`);
      }
      return { slowest };
    },
    async python(): Promise<MeasureResult> {
      const { createPythonSandbox } = await import('../server/dm-python');
      const sandbox = createPythonSandbox();
      const ctx = (expansion: number) => ({ env: { project: 'bench', name: 'r', type: 't.py' }, properties: { n: 3 }, imports: {}, name: 'r', type: 't.py', expansion });
      const source = "def GenerateConfig(c):\n  return {'resources': [{'name': 'r%d' % i, 'type': 'T'} for i in range(c.properties['n'])]}\n";
      try {
        let t = performance.now();
        const first = sandbox.run(source, ctx(1), {});
        const firstMs = performance.now() - t;
        if (!first.ok) return { unavailable: first.message };
        const warm: number[] = [];
        for (let i = 2; i < 22; i++) {
          t = performance.now();
          const r = sandbox.run(source, ctx(i), {});
          warm.push(performance.now() - t);
          if (!r.ok) throw new Error(r.message);
        }
        return { firstMs, warmMs: median(warm), started: sandbox.stats().started };
      } finally {
        await sandbox.close();
      }
    },
  },
  async run(ctx) {
    const jinja = await ctx.inChild('jinja');
    const hostile = await ctx.inChild('hostile');
    const python = await ctx.inChild('python');
    ctx.table([
      ['measure', 'value'],
      ['200 resources × 4 primitives, expanded (median ms)', round(Number(jinja.result.ms), 1)],
      [`${HOSTILE.length} hostile templates: slowest to its budget error (ms)`, round(Number(hostile.result.slowest), 0)],
      ['hostile templates: peak RSS of the process (MiB)', round(hostile.maxRssMiB, 0)],
      ...(python.result.unavailable ? [['Python', String(python.result.unavailable)]] : [
        ['Python: first template, Pyodide boot included (ms)', round(Number(python.result.firstMs), 0)],
        ['Python: 20 later expansions of one tenant, median (ms)', round(Number(python.result.warmMs), 1)],
        ['Python: processes started for 21 expansions', Number(python.result.started)],
      ]),
    ]);
    return [
      figure('dm.jinja.render_200.ms', round(Number(jinja.result.ms), 1)),
      figure('dm.jinja.hostile.max_ms', round(Number(hostile.result.slowest), 0)),
      figure('dm.jinja.hostile.rss_mib', round(hostile.maxRssMiB, 0)),
      ...(python.result.unavailable
        ? []
        : [figure('dm.python.first.ms', round(Number(python.result.firstMs), 0)), figure('dm.python.warm.ms', round(Number(python.result.warmMs), 1))]),
    ];
  },
});
