/**
 * The clients of the `hostile` benchmark, each in a process of its own so
 * that neither shares the server's event loop nor the other's:
 *
 *   probe BASE         `GET /` back to back until told to stop; answers the
 *                      latencies (ms).
 *   send BASE USER N C every hostile payload (server/testing/hostile-languages.ts)
 *                      through every door (server/testing/hostile-doors.ts),
 *                      and each selector program, as USER, N rounds, C in
 *                      flight; requests are built before it says `ready`
 *                      and sent when told `go`; answers each one's status
 *                      and time (ms).
 *
 * Started by hostile.bench.ts with `fork(this, [mode, …])` under tsx; speaks
 * over IPC.
 */
import { DOORS, prepareDoor, prepareRules, send, type Prepared } from '../server/testing/hostile-doors';
import { HOSTILE_POLICIES, HOSTILE_SELECTORS } from '../server/testing/hostile-languages';

const [mode, base, user = 'nina', rounds = '1', inFlight = '4'] = process.argv.slice(2);
/** An IPC message, sent once it is out (a disconnect right after a plain send may drop it). */
const tell = (m: unknown) => new Promise<void>((resolve) => process.send!(m, () => resolve()));

async function probe(): Promise<void> {
  const latencies: number[] = [];
  let stop = false;
  process.once('message', () => (stop = true));
  await tell({ ready: true });
  while (!stop) {
    const t0 = performance.now();
    const res = await fetch(`${base}/`, { redirect: 'manual' });
    await res.arrayBuffer();
    latencies.push(performance.now() - t0);
    if (res.status !== 307) throw new Error(`GET / answered ${res.status}`);
  }
  await tell({ latencies });
}

async function sendAll(): Promise<void> {
  const requests: { name: string; r: Prepared }[] = [];
  for (let round = 0; round < Number(rounds); round++) {
    for (const [i, p] of HOSTILE_POLICIES.entries()) {
      for (const door of DOORS) requests.push({ name: `${p.language}: ${p.name} (${door})`, r: await prepareDoor(door, p, { user, n: round * 100 + i, baseGeneration: 1 }) });
    }
    for (const s of HOSTILE_SELECTORS) requests.push({ name: `selectors: ${s.name} (rules)`, r: prepareRules(s.rules, user) });
  }
  await new Promise<void>((resolve) => {
    process.once('message', () => resolve());
    void tell({ ready: true });
  });
  const answers: { name: string; status: number; ms: number }[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: Number(inFlight) }, async () => {
      while (next < requests.length) {
        const { name, r } = requests[next++]!;
        const t0 = performance.now();
        const a = await send(base!, r);
        answers.push({ name, status: a.status, ms: performance.now() - t0 });
      }
    }),
  );
  await tell({ answers });
}

(mode === 'probe' ? probe() : sendAll()).then(
  () => process.disconnect(),
  async (e: unknown) => {
    await tell({ error: e instanceof Error ? e.message : String(e) });
    process.disconnect();
  },
);
