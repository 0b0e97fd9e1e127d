/**
 * Runs one measurement of one benchmark in its own process, so that its peak
 * RSS is its own and not the runner's (or another benchmark's) garbage.
 * Started by `run.ts` (`ctx.inChild`) with an IPC channel:
 *
 *   node --import tsx --expose-gc bench/child.ts FILE BENCHMARK MEASURE ARGS_JSON
 *
 * and answers with exactly one message, `ChildMessage`. Its stdout goes to the
 * runner's stderr, so whatever a measure prints cannot pass for a figure.
 */
import { pathToFileURL } from 'node:url';
import { listBenchmarks, maxRssMiB, type MeasureArgs, type MeasureResult } from './registry';

export type ChildMessage =
  | { ok: true; result: MeasureResult; maxRssMiB: number; baselineRssMiB: number }
  | { ok: false; error: string };

async function main(): Promise<ChildMessage> {
  const [file, name, key, argsJson = '{}'] = process.argv.slice(2);
  if (!file || !name || !key) return { ok: false, error: 'usage: child.ts FILE BENCHMARK MEASURE [ARGS_JSON]' };
  await import(pathToFileURL(file).href);
  const bench = listBenchmarks().find((b) => b.name === name);
  const measure = bench?.measures?.[key];
  if (!measure) return { ok: false, error: `${file} registers no measure "${key}" for benchmark "${name}"` };
  const args = JSON.parse(argsJson) as MeasureArgs;
  const baselineRssMiB = maxRssMiB();
  const result = await measure(args);
  return { ok: true, result, maxRssMiB: maxRssMiB(), baselineRssMiB };
}

function reply(msg: ChildMessage): void {
  if (!process.send) {
    // Run by hand: print the answer instead.
    console.log(JSON.stringify(msg, null, 2));
    process.exitCode = msg.ok ? 0 : 1;
    return;
  }
  // Exit only once the message is out; the channel would otherwise keep us alive.
  process.send(msg, () => process.exit(msg.ok ? 0 : 1));
}

main().then(reply, (e: unknown) => reply({ ok: false, error: e instanceof Error ? (e.stack ?? e.message) : String(e) }));
