/**
 * Hostile and oversized input for the engine's own caps, in one place: the
 * engine tests check that each is stopped with the right outcome, and the
 * `limits` benchmark (bench/limits.bench.ts) times the same inputs. How fast
 * a cap stops its input is a benchmark figure, never a test assertion: a
 * loaded machine must not fail the suite.
 */

/** Go templates that each end in `template_limit`; `data` builds the input when asked, so importing this costs nothing. */
export const HOSTILE_TEMPLATES: readonly { what: string; source: string; data: () => unknown }[] = [
  { what: 'a million-item range', source: '{{ range . }}{{ . }}{{ end }}', data: () => Array.from({ length: 1_000_000 }, (_, i) => i) },
  // Nested ranges multiply: 1000 × 1000 iterations.
  { what: 'nested ranges', source: '{{ range $.a }}{{ range $.a }}x{{ end }}{{ end }}', data: () => ({ a: thousand() }) },
  // Output growth is capped even when a single action produces it.
  { what: 'one huge printf', source: '{{ printf "%999999d" 1 }}{{ printf "%999999d" 1 }}', data: () => ({}) },
  { what: 'printf in a range', source: '{{ range . }}{{ printf "%99999d" . }}{{ end }}', data: thousand },
  // Deep nesting and oversized sources are refused by the parser.
  { what: 'deep parentheses', source: '{{ ' + '('.repeat(500) + '1' + ')'.repeat(500) + ' }}', data: () => ({}) },
  { what: 'deep ifs', source: '{{ if 1 }}'.repeat(200) + '{{ end }}'.repeat(200), data: () => ({}) },
  { what: 'a 300 KiB source', source: 'x'.repeat(300 * 1024), data: () => ({}) },
];

function thousand(): number[] {
  return Array.from({ length: 1000 }, (_, i) => i);
}

/** govaluate expressions and what each must give: `limit` (expr_limit) or the value. */
export const HOSTILE_EXPRESSIONS: readonly { what: string; source: string; params: () => Record<string, unknown>; expect: 'limit' | boolean }[] = [
  { what: 'a 5,000-character name', source: 'a'.repeat(5000) + ' == 1', params: () => ({}), expect: 'limit' },
  { what: 'deep parentheses', source: '('.repeat(300) + '1' + ')'.repeat(300) + ' == 1', params: () => ({}), expect: 'limit' },
  { what: '1,200 terms', source: Array.from({ length: 1200 }, () => '1').join(' + ') + ' > 0', params: () => ({}), expect: 'limit' },
  // String growth is capped.
  { what: 'string growth', source: 's + s + s + s > 0', params: () => ({ s: 'x'.repeat(30_000) }), expect: 'limit' },
  // A catastrophic-backtracking pattern is linear for the RE2-style matcher.
  { what: 'catastrophic =~', source: "s =~ '^(a+)+$'", params: () => ({ s: 'a'.repeat(3000) + '!' }), expect: false },
  // Exponentiation towers overflow to +Inf at once rather than computing.
  { what: 'a power tower', source: Array.from({ length: 300 }, () => '9').join(' ** ') + ' > 0', params: () => ({}), expect: true },
  // Long but legitimate expressions are still fine.
  { what: '400 ands', source: Array.from({ length: 400 }, () => 'true').join(' && '), params: () => ({}), expect: true },
];

/** Patterns that backtrack catastrophically in JavaScript's engine, and whether RE2 finds a match. */
export const HOSTILE_PATTERNS: readonly { pattern: string; input: string; matches: boolean }[] = [
  { pattern: '^(a+)+$', input: 'a'.repeat(5000) + '!', matches: false },
  { pattern: '(x+x+)+y', input: 'x'.repeat(5000), matches: false },
  { pattern: '^(a|a)*$', input: 'a'.repeat(5000) + 'b', matches: false },
  { pattern: '(.*a){20}', input: 'a'.repeat(2000), matches: true },
];

/**
 * Aptomi policy: claim `deep` (user `ops`) of service `s0`, a chain of
 * `levels` services each allocating a bundle whose one component uses the
 * next; the last bundle's component is a helm chart.
 */
export function serviceChainPolicy(levels: number): string {
  let yaml = '';
  for (let i = 0; i < levels; i++) {
    const next = i + 1 < levels ? `{name: next, service: s${i + 1}}` : `{name: leaf, code: {type: helm}}`;
    yaml += `\n- {kind: bundle, metadata: {namespace: main, name: b${i}}, components: [${next}]}`;
    yaml += `\n- {kind: service, metadata: {namespace: main, name: s${i}}, contexts: [{name: c, allocation: {bundle: b${i}}}]}`;
  }
  return yaml + '\n- {kind: claim, metadata: {namespace: main, name: deep}, user: ops, service: s0}';
}

/**
 * Aptomi policy: claim `c` (user `dev`, 60 labels) of a service whose
 * component renders three nested ranges of 999-wide printfs and whose first
 * context's criteria are 150 ors; the claim must fail on the template's cap.
 */
export function hostileTemplatesPolicy(): string {
  const huge = `{{ range $i, $x := .Labels }}{{ range $j, $y := $.Labels }}{{ range $k, $z := $.Labels }}{{ printf "%0999d" 1 }}{{ end }}{{ end }}{{ end }}`;
  return `
- {kind: cluster, metadata: {namespace: system, name: k8s}, type: kubernetes}
- {kind: rule, metadata: {namespace: main, name: place}, weight: 0, actions: {change-labels: {set: {target: k8s}}}}
- {kind: bundle, metadata: {namespace: main, name: b}, components: [{name: x, code: {type: raw, params: {manifest: '${huge}'}}}]}
- {kind: service, metadata: {namespace: main, name: s}, contexts: [{name: c, criteria: {require-all: ["${Array(150).fill("team == 'x'").join(' || ')}"]}, allocation: {bundle: b}}, {name: d, allocation: {bundle: b}}]}
- {kind: claim, metadata: {namespace: main, name: c}, user: dev, service: s, labels: {${Array.from({ length: 60 }, (_, i) => `l${i}: v`).join(', ')}}}`;
}

/** A key shaped as the resolver builds them, for claim `i` of a 20,000-claim resolution. */
export function resolutionKey(i: number): string {
  return `system#cluster-${i % 7}#ns#platform#service-${i}#ctx#component-${i % 13}`;
}
const component = (params: string) => `- {kind: bundle, metadata: {namespace: main, name: hb}, components: [{name: x, code: {type: helm, params: {${params}}}}]}`;
const serviceAndClaim = (name: string, extra = '') => `
- {kind: service, metadata: {namespace: main, name: hs}, contexts: [{name: c, allocation: {bundle: hb}}]}
- {kind: claim, metadata: {namespace: main, name: ${name}}, user: Sam, service: hs, labels: {target: k8s-example.west${extra}}}`;

function serviceFanOut(levels: number): string {
  let y = '';
  for (let i = 0; i < levels; i++) {
    y += `\n- {kind: bundle, metadata: {namespace: main, name: fb${i}}, components: [{name: l, service: fs${i + 1}}, {name: r, service: fs${i + 1}}]}`;
    y += `\n- {kind: service, metadata: {namespace: main, name: fs${i}}, contexts: [{name: c, allocation: {bundle: fb${i}, keys: ['{{ .Labels.k }}']}}]}`;
  }
  y += `\n- {kind: bundle, metadata: {namespace: main, name: fb${levels}}, components: [{name: leaf, code: {type: helm}}]}`;
  y += `\n- {kind: service, metadata: {namespace: main, name: fs${levels}}, contexts: [{name: c, allocation: {bundle: fb${levels}}}]}`;
  y += `\n- {kind: claim, metadata: {namespace: main, name: fan}, user: Sam, service: fs0, labels: {k: v, target: k8s-example.west}}`;
  return y;
}

/**
 * Hostile Aptomi payloads a user with the right saves or previews (in the
 * demo's namespace `main`, as Sam): each must end as an error on its claim,
 * `error` naming the engine's cap that stopped it. The service tests check
 * that (server/services/hostile.test.ts); the `hostile.policy` benchmark
 * times them and the server's answers meanwhile.
 */
export const HOSTILE_SAVES: readonly { name: string; claim: string; yaml: string; error: RegExp }[] = [
  {
    name: 'huge printf widths in nested ranges',
    claim: 'printf',
    yaml: component(`a: '{{ range $i, $x := .Labels }}{{ range $j, $y := $.Labels }}{{ printf "%0900000d" 1 }}{{ end }}{{ end }}'`) + serviceAndClaim('printf'),
    error: /larger than|exceeded/,
  },
  { name: '2^30 fan-out through services (traced)', claim: 'fan', yaml: serviceFanOut(30), error: /walks more than 20000 service levels/ },
  { name: 'NUL in the output', claim: 'nul', yaml: component(`a: '{{ printf "%c" 0 }}'`) + serviceAndClaim('nul'), error: /rendered a NUL character, which cannot be stored/ },
  {
    name: 'catastrophic =~ on a long label',
    claim: 'regex',
    yaml: component('a: b') + serviceAndClaim('regex', `, long: '${'a'.repeat(20000)}!'`).replace('allocation: {bundle: hb}', () => `criteria: {require-all: ["long =~ '(a+)+$'"]}, allocation: {bundle: hb}`),
    error: /unable to find matching context/,
  },
];

