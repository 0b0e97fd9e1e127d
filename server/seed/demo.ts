/**
 * The demo policy loaded into an empty database on first start: Aptomi's
 * twitter-analytics example, then its guestbook example, as two generations
 * so the history page has something to compare.
 */
import { join } from 'node:path';
import { formatDiagnostic, hasErrors } from '../engine/diagnostics';
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
    if (hasErrors(loaded.diagnostics)) {
      throw new Error(`Demo policy is invalid:\n${loaded.diagnostics.map(formatDiagnostic).join('\n')}`);
    }
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
