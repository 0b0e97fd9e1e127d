/**
 * How fast the engine's caps stop hostile and oversized input, on the inputs
 * the engine tests check the outcome of (server/testing/hostile-engine.ts).
 * The tests say *that* each is stopped; these figures say how fast, which a
 * test on a loaded machine cannot.
 *
 * Figures (median of REPEATS warm runs, ms; the targets the tests used to assert):
 * - limits.hash_20k.ms: instance ids and deploy names of a 20,000-claim resolution's keys (500).
 * - limits.deep_chain.ms: resolving a claim on a service chain past the depth cap (1,000).
 * - limits.hostile_resolve.ms: resolving a claim whose template and criteria are hostile (1,000).
 * - limits.hostile_template.ms: every hostile Go template, compiled and rendered (1,000).
 * - limits.hostile_expr.ms: every hostile govaluate expression, compiled and evaluated (1,000).
 * - limits.re2_hostile.max_ms: the slowest catastrophic-backtracking pattern, compiled and matched (1,000).
 */
import { MAX_SERVICE_DEPTH, resolvePolicy } from '../server/engine/resolve';
import { loadObjects } from '../server/engine/model/validate';
import type { PolicyUser } from '../server/engine/model/users';
import { deployName, instanceId } from '../server/engine/lang/hash';
import { compileTemplate, renderTemplate } from '../server/engine/lang/gotemplate';
import { compileExpr, evalExpr, type ExprParams } from '../server/engine/lang/govaluate';
import { compileRe2 } from '../server/engine/lang/re2';
import { HOSTILE_EXPRESSIONS, HOSTILE_PATTERNS, HOSTILE_TEMPLATES, hostileTemplatesPolicy, resolutionKey, serviceChainPolicy } from '../server/testing/hostile-engine';
import { figure, median, registerBenchmark, round, type MeasureResult } from './registry';

const REPEATS = 7;

const USERS: PolicyUser[] = [
  { name: 'dev', labels: { team: 'dev' }, secrets: {} },
  { name: 'ops', labels: { team: 'ops' }, secrets: {} },
];

function objects(yaml: string) {
  const r = loadObjects(yaml);
  const errors = r.diagnostics.filter((d) => d.severity === 'error');
  if (errors.length) throw new Error(`benchmark policy does not load: ${errors[0]!.message}`);
  return r.objects;
}

/** Median ms of `work` over REPEATS runs after one warm-up; `work` throws when its outcome is not the expected one. */
function timed(work: () => void): number {
  work();
  const gc = (globalThis as { gc?: () => void }).gc;
  const times: number[] = [];
  for (let i = 0; i < REPEATS; i++) {
    gc?.();
    const t = performance.now();
    work();
    times.push(performance.now() - t);
  }
  return median(times);
}

function expect(ok: boolean, what: string): void {
  if (!ok) throw new Error(`${what}: not the outcome the engine tests expect`);
}

registerBenchmark({
  name: 'limits',
  description: "how fast the engine's caps stop hostile input: key hashing at 20,000 claims, a too-deep service chain, hostile templates, expressions and RE2 patterns",
  measures: {
    run(): MeasureResult {
      const chain = objects(serviceChainPolicy(MAX_SERVICE_DEPTH + 5));
      const hostile = objects(hostileTemplatesPolicy());
      const templates = HOSTILE_TEMPLATES.map((t) => ({ ...t, input: t.data() }));
      const expressions = HOSTILE_EXPRESSIONS.map((e) => ({ ...e, input: e.params() as ExprParams }));
      const result: MeasureResult = {
        hashMs: timed(() => {
          let n = 0;
          for (let i = 0; i < 20_000; i++) n += deployName(resolutionKey(i)).length + instanceId(resolutionKey(i)).length;
          expect(n > 0, 'hashing');
        }),
        deepChainMs: timed(() => expect(resolvePolicy({ objects: chain, users: USERS }).claims[0]!.status === 'error', 'deep chain')),
        hostileResolveMs: timed(() => expect(resolvePolicy({ objects: hostile, users: USERS }).claims[0]!.status === 'error', 'hostile resolve')),
        hostileTemplateMs: timed(() => {
          for (const t of templates) {
            const c = compileTemplate(t.source);
            const code = c.ok ? (r => (r.ok ? undefined : r.error.code))(renderTemplate(c.value, t.input)) : c.error.code;
            expect(code === 'template_limit', t.what);
          }
        }),
        hostileExprMs: timed(() => {
          for (const e of expressions) {
            const c = compileExpr(e.source);
            const r = c.ok ? evalExpr(c.value, e.input) : c;
            expect(r.ok ? r.value === e.expect : r.error.code === 'expr_limit' && e.expect === 'limit', e.what);
          }
        }),
      };
      let slowest = 0;
      for (const p of HOSTILE_PATTERNS) {
        const ms = timed(() => {
          const r = compileRe2(p.pattern);
          expect(r.ok && r.value.test(p.input) === p.matches, p.pattern);
        });
        slowest = Math.max(slowest, ms);
      }
      result.re2SlowestMs = slowest;
      return result;
    },
  },
  async run(ctx) {
    const r = (await ctx.inChild('run')).result;
    const n = (k: string) => Number(r[k]);
    const rows: [string, string, number, number][] = [
      ['limits.hash_20k.ms', '20,000 keys: instance id + deploy name', n('hashMs'), 500],
      ['limits.deep_chain.ms', `a service chain ${MAX_SERVICE_DEPTH + 5} deep, resolved`, n('deepChainMs'), 1000],
      ['limits.hostile_resolve.ms', 'nested 999-wide printfs, 150 ors, 60 labels, resolved', n('hostileResolveMs'), 1000],
      ['limits.hostile_template.ms', `${HOSTILE_TEMPLATES.length} hostile Go templates`, n('hostileTemplateMs'), 1000],
      ['limits.hostile_expr.ms', `${HOSTILE_EXPRESSIONS.length} hostile govaluate expressions`, n('hostileExprMs'), 1000],
      ['limits.re2_hostile.max_ms', `slowest of ${HOSTILE_PATTERNS.length} backtracking patterns`, n('re2SlowestMs'), 1000],
    ];
    ctx.table([['figure', 'input (server/testing/hostile-engine.ts)', 'median ms', 'target ms'], ...rows.map(([f, what, ms, target]) => [f, what, round(ms, 1), target])]);
    return rows.map(([f, , ms]) => figure(f, round(ms, 1)));
  },
});
