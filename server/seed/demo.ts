/**
 * The demo policy loaded into an empty database on first start: Aptomi's
 * twitter-analytics example, then its guestbook example, as two generations
 * so the history page has something to compare. Aptomi's cluster has no
 * prices or marks; the demo's (demo-cluster.yaml) adds them so revisions
 * show costs and quota checks.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { formatDiagnostic, hasErrors } from '../engine/diagnostics';
import { loadObjects } from '../engine/model/validate';
import { loadPolicyFiles } from '../loader/files';
import type { Repos } from '../repo/types';

const EXAMPLES = join(process.cwd(), 'corpus/aptomi/examples');

export const DEMO_STEPS = [
  {
    message: 'Demo: Aptomi twitter-analytics example',
    paths: [join(EXAMPLES, 'twitter-analytics/policy'), join(EXAMPLES, 'twitter-analytics/policy/clusters/clusters.yaml.template')],
  },
  { message: 'Demo: Aptomi guestbook example', paths: [join(EXAMPLES, 'guestbook')] },
];

/** Seeds only an empty database (generation 0); returns the generations written. */
export async function seedDemo(repos: Repos, author = 'keelson'): Promise<number[]> {
  if ((await repos.policy.head()) !== 0) return [];
  const written: number[] = [];
  for (const step of DEMO_STEPS) {
    const loaded = loadPolicyFiles(step.paths);
    const cluster = loadObjects(readFileSync(/*turbopackIgnore: true*/ join(process.cwd(), 'server/seed/demo-cluster.yaml'), 'utf8'), 'demo-cluster.yaml');
    if (hasErrors(loaded.diagnostics) || hasErrors(cluster.diagnostics)) {
      throw new Error(`Demo policy is invalid:\n${[...loaded.diagnostics, ...cluster.diagnostics].map(formatDiagnostic).join('\n')}`);
    }
    loaded.objects = loaded.objects.map((o) => cluster.objects.find((c) => c.kind === o.kind && c.namespace === o.namespace && c.name === o.name) ?? o);
    const base = await repos.policy.head();
    const res = await repos.policy.commit({
      baseGeneration: base,
      author,
      message: step.message,
      upserts: loaded.objects.map((o) => ({ kind: o.kind, namespace: o.namespace, name: o.name, text: o.text, spec: o.spec })),
      deletes: [],
    });
    // Another process seeding at the same moment wins; that is fine.
    if (res.status === 'conflict') return written;
    if (res.status === 'committed') written.push(res.generation.generation);
  }
  return written;
}
