/** Policies that tests and tools generate. */

/** Valid policy that takes the engine about 40 ms per claim: `n` claims, each walking 8,000 label values (a few bytes of output). */
export function heavyPolicy(n: number): string {
  const labels = Array.from({ length: 20 }, (_, i) => `l${i}: v${i}, `).join('');
  let y = `
- {kind: bundle, metadata: {namespace: main, name: hvb}, components: [{name: x, code: {type: helm, params: {a: '{{ range $i, $x := .Labels }}{{ range $j, $y := $.Labels }}{{ range $k, $z := $.Labels }}{{ if eq $z "none" }}{{ $z }}{{ end }}{{ end }}{{ end }}{{ end }}', b: '{{ .Labels.id }}'}}}]}
- {kind: service, metadata: {namespace: main, name: hvs}, contexts: [{name: c, allocation: {bundle: hvb, keys: ['{{ .Labels.id }}']}}]}`;
  for (let i = 0; i < n; i++) y += `\n- {kind: claim, metadata: {namespace: main, name: hv${i}}, user: Sam, service: hvs, labels: {id: 'n${i}', ${labels}target: k8s-example.west}}`;
  return y;
}

/**
 * A stored claim (namespace `snap`) whose spec's keys jsonb reorders
 * (shorter keys first): an object carried in memory must read exactly as a
 * fresh read of the database gives it.
 */
export function reorderedClaim(name: string, user = 'ann') {
  return {
    kind: 'claim',
    namespace: 'snap',
    name,
    text: `kind: claim\nmetadata: {namespace: snap, name: ${name}}\nuser: ${user}\nservice: s\n`,
    spec: { service: 's', user, labels: { zz: '1', a: '2' } },
  };
}
