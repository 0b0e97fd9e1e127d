import { resolvePolicy, type PolicyObjectInput } from './server/engine/resolve';
import { generatePolicy } from './bench/generator';
const preset = (process.argv[2] ?? 'medium') as 'medium';
const g = generatePolicy(preset);
const objects = g.objects.map((o: any) => ({ kind: o.kind, namespace: o.metadata.namespace, name: o.metadata.name, spec: o })) as unknown as PolicyObjectInput[];
for (const trace of [false, false, true, false]) {
  const t = performance.now();
  const s = resolvePolicy({ objects, users: g.users }, { trace });
  console.log(preset, 'trace', trace, (performance.now() - t).toFixed(0), 'ms', s.instances.length, 'rss', (process.memoryUsage().rss/1048576).toFixed(0));
}
