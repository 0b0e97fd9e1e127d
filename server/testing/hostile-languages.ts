/**
 * One hostile payload for every language the server evaluates — Go
 * templates, govaluate, RE2, YAML, spiff, Jinja, Python, Axebow selectors
 * and Capact's policy rules — written as the policy text (or, for
 * selectors, the tenant rules) a client sends, in a namespace and a user
 * name of the caller's choosing. The suite in
 * server/reliability/hostile-norole.test.ts and the `hostile` benchmark
 * send each through every door that takes it (save, preview, an API
 * create's bundle, DM's expand) as a user with no role, who must get a
 * refusal, and as one with the right, who must get the object's error.
 * The REST corpus (./hostile-rest.ts) builds its bundles from the same
 * pieces.
 */

/** A bundle whose component renders `params`, and a service offering it (with context criteria). */
export function offering(ns: string, name: string, params: string, criteria = ''): string {
  return `kind: bundle
metadata: {namespace: ${ns}, name: hb-${name}}
components: [{name: x, code: {type: raw, params: {${params}}}}]
---
kind: service
metadata: {namespace: ${ns}, name: hs-${name}}
contexts: [{name: c, ${criteria}allocation: {bundle: hb-${name}}}]
`;
}

/** Services each allocating a bundle that consumes the next level twice: 2^levels instances, `hs-<name>` on top. */
export function fanOut(ns: string, name: string, levels: number): string {
  let y = '';
  for (let i = 0; i < levels; i++) {
    y += `---\nkind: bundle\nmetadata: {namespace: ${ns}, name: fb${i}-${name}}\ncomponents: [{name: l, service: fs${i + 1}-${name}}, {name: r, service: fs${i + 1}-${name}}]\n`;
    y += `---\nkind: service\nmetadata: {namespace: ${ns}, name: ${i === 0 ? `hs-${name}` : `fs${i}-${name}`}}\ncontexts: [{name: c, allocation: {bundle: fb${i}-${name}, keys: ['{{ .Labels.tier }}']}}]\n`;
  }
  y += `---\nkind: bundle\nmetadata: {namespace: ${ns}, name: fb${levels}-${name}}\ncomponents: [{name: leaf, code: {type: raw}}]\n`;
  y += `---\nkind: service\nmetadata: {namespace: ${ns}, name: fs${levels}-${name}}\ncontexts: [{name: c, allocation: {bundle: fb${levels}-${name}}}]\n`;
  return y;
}

/** Anchors of ten aliases each, twelve deep: 10^12 nodes if expanded. */
export function aliasBomb(): string {
  let y = 'a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n';
  for (let i = 1; i < 12; i++) y += `a${i}: &a${i} [${Array.from({ length: 10 }, () => `*a${i - 1}`).join(', ')}]\n`;
  return y;
}

/** A DM deployment carrying `files` under `imports`, its one resource of type `type`. */
function deployment(ns: string, name: string, type: string, files: Record<string, string>): string {
  const imports = Object.entries(files)
    .map(([k, v]) => `  ${k}: |\n${v.replace(/^/gm, '    ')}\n`)
    .join('');
  return `kind: deployment\nmetadata: {namespace: ${ns}, name: ${name}}\ntarget: k8s-example\nconfiguration:\n  imports: [${Object.keys(files).join(', ')}]\n  resources: [{name: a, type: ${type}}]\nimports:\n${imports}`;
}

export interface HostilePolicy {
  language: string;
  /** What it tries. */
  name: string;
  /** The text a client sends, in namespace `ns`, naming `user` where a claim does. */
  text(ns: string, user: string, name: string): string;
  /**
   * Where a writer with the right meets its error: `load` — the save (and
   * the preview) refuses it, naming the object; `resolve` — it is saved and
   * its claims fail; `none` — a costly text that is valid (it must still
   * cost its sender, not the server).
   */
  fails: 'load' | 'resolve' | 'none';
  /** As a DM template (`POST /api/dm/expand`): the configuration and its files. */
  template?: { content: string; imports: { name: string; content: string }[] };
}

const dmConfig = (type: string) => `imports: [${type}]\nresources: [{name: a, type: ${type}}]\n`;

export const HOSTILE_POLICIES: readonly HostilePolicy[] = [
  {
    language: 'Go templates',
    name: 'printf widths in nested ranges',
    text: (ns, _u, n) => offering(ns, n, `a: '{{ range $i, $x := .Labels }}{{ range $j, $y := $.Labels }}{{ printf "%0900000d" 1 }}{{ end }}{{ end }}'`),
    fails: 'resolve',
  },
  {
    language: 'Go templates',
    name: 'a 2^30 fan-out through services',
    text: (ns, _u, n) => fanOut(ns, n, 30),
    fails: 'resolve',
  },
  {
    language: 'govaluate',
    name: 'an expression nested 5,000 parentheses deep',
    text: (ns, _u, n) => offering(ns, n, 'a: b', `criteria: {require-all: ["${'('.repeat(5000)}a == 'x'${')'.repeat(5000)}"]}, `),
    fails: 'load',
  },
  {
    language: 'RE2',
    name: "a catastrophic =~ '(a+)+$' on a 20,000-character label",
    text: (ns, user, n) => offering(ns, n, 'a: b', `criteria: {require-all: ["long =~ '(a+)+$'"]}, `) + `---\nkind: claim\nmetadata: {namespace: ${ns}, name: re-${n}}\nuser: ${user}\nservice: hs-${n}\nlabels: {long: '${'a'.repeat(20_000)}!'}\n`,
    fails: 'resolve',
  },
  {
    language: 'YAML',
    name: 'an alias bomb',
    text: (ns, _u, n) => `kind: bundle\nmetadata: {namespace: ${ns}, name: bomb-${n}}\n${aliasBomb()}components: [{name: x, code: {type: raw, params: {v: *a11}}}]\n`,
    fails: 'load',
  },
  {
    language: 'YAML',
    name: 'a 10 MiB claim of 100,000 labels',
    text: (ns, user, n) => {
      let y = `kind: claim\nmetadata: {namespace: ${ns}, name: big-${n}}\nuser: ${user}\nservice: hs-${n}\nlabels:\n`;
      const value = 'v'.repeat(88);
      for (let i = 0; i < 100_000; i++) y += `  l${i}: ${value}\n`;
      return y;
    },
    fails: 'load',
  },
  {
    language: 'YAML',
    name: 'a 9 MB string',
    text: (ns, user, n) => `kind: claim\nmetadata: {namespace: ${ns}, name: long-${n}}\nuser: ${user}\nservice: hs-${n}\nlabels: {a: '${'x'.repeat(9_000_000)}'}\n`,
    fails: 'load',
  },
  {
    language: 'YAML',
    name: 'malformed YAML',
    text: (ns, _u, n) => `kind: bundle\nmetadata: {namespace: ${ns}, name: broken-${n}}\ncomponents: [{name: x, code: {type: raw}\n  nope: : :\n`,
    fails: 'load',
  },
  {
    language: 'spiff',
    name: 'a string doubled 39 times in a blueprint’s export',
    text: (ns, _u, n) => {
      let doc = '        s0: xxxxxxxxxx\n';
      for (let i = 1; i < 40; i++) doc += `        s${i}: (( s${i - 1} s${i - 1} ))\n`;
      return `apiVersion: landscaper.gardener.cloud/v1alpha1\nkind: Blueprint\nmetadata: {name: bp-${n}, namespace: ${ns}}\nexportExecutions:\n  - name: e\n    type: Spiff\n    template:\n      exports:\n${doc}`;
    },
    fails: 'none',
  },
  {
    language: 'Jinja',
    name: "{{ ''|center(10000000) }}",
    text: (ns, _u, n) => deployment(ns, `centre-${n}`, 't.jinja', { 't.jinja': "{{ ''|center(10000000) }}" }),
    fails: 'load',
    template: { content: dmConfig('t.jinja'), imports: [{ name: 't.jinja', content: "{{ ''|center(10000000) }}" }] },
  },
  {
    language: 'Python',
    name: 'a template that never returns',
    text: (ns, _u, n) => deployment(ns, `loop-${n}`, 't.py', { 't.py': 'def GenerateConfig(context):\n  while True:\n    pass\n' }),
    // Saving does not run Python (a save must not wait for an interpreter): the resolution fails it at the sandbox's limit.
    fails: 'resolve',
    template: { content: dmConfig('t.py'), imports: [{ name: 't.py', content: 'def GenerateConfig(context):\n  while True:\n    pass\n' }] },
  },
  {
    language: 'Capact rules',
    name: 'an Action policy of 5,000 rules with 30-star paths',
    text: (ns, _u, n) => {
      const rules = Array.from({ length: 5000 }, (_, i) => `    - interface: {path: "cap.${'*.'.repeat(30)}x${i}"}\n      oneOf: [{implementationConstraints: {requires: [{path: cap.core.type.platform.kubernetes}]}}]`).join('\n');
      return `kind: action\nmetadata: {namespace: ${ns}, name: act-${n}}\ninterface: {path: cap.interface.database.postgresql.install}\ntarget: k8s-example\npolicy:\n  interface:\n    rules:\n${rules}\n`;
    },
    fails: 'none',
  },
];

/** Axebow selector programs (a tenant's rules), which the server compiles and runs when placing services. */
export const HOSTILE_SELECTORS: readonly { name: string; rules: unknown }[] = [
  { name: 'a program that underflows its stack', rules: { selectEnvironmentService: [{ reason: 'hostile', sel: ['::and'] }] } },
  { name: 'a program of 1,024 operators', rules: { selectEnvironmentService: [{ reason: 'hostile', sel: Array.from({ length: 1024 }, () => '::not') }] } },
];
