/**
 * Policies whose units are each within every per-run budget (steps, sizes)
 * but slow in all: what the host's clock (engine/host-clock.ts) bounds.
 * Shared by the tests of that clock and of what a time-out leaves behind
 * (engine/host-clock.test.ts, engine/timed-out.test.ts,
 * services/timed-out.test.ts).
 */

/** A Go template of 80,000 steps (the budget is 100,000 per render): fine alone, slow eight times over. */
export const SLOW_TEMPLATE = '{{ range 40000 }}.{{ end }}';

/** The YAML lines of `count` bundle components, each rendering SLOW_TEMPLATE (indented for a bundle's `components:`). */
export function slowComponents(count = 8): string {
  return Array.from({ length: count }, (_, i) => `    - {name: c${i}, code: {type: helm, params: {dots: "${SLOW_TEMPLATE}"}}}`).join('\n');
}

/**
 * A Hub of 400 Implementations of one Interface and a Global policy whose
 * first rule matches none of them: each path match is quick, all of them
 * together are many. `---`-separated documents, ending with the policy.
 */
export function manyImplementationsHub(): string {
  const implementations = Array.from(
    { length: 400 },
    (_, i) => `ocfVersion: 0.0.1
revision: 0.1.0
kind: Implementation
metadata: {prefix: cap.implementation.many, name: i${i}}
spec:
  implements: [{path: cap.interface.database.postgresql.install, revision: 0.1.0}]
  keelson: {code: {type: helm, params: {chartName: i${i}}}}`,
  ).join('\n---\n');
  return `ocfVersion: 0.0.1
revision: 0.1.0
kind: Interface
metadata: {prefix: cap.interface.database.postgresql, name: install}
spec: {input: {}, output: {}}
---
${implementations}
---
kind: policy
metadata: {namespace: system, name: global}
interface:
  rules:
    - interface: {path: cap.interface.database.postgresql.install}
      oneOf: [{implementationConstraints: {path: "^cap\\\\.implementation\\\\.nowhere"}}, {implementationConstraints: {path: "i399$"}}]`;
}
