/**
 * Processes for the reliability tests: console processes
 * (server/testing/console-process.ts) and apply workers
 * (server/apply/worker-main.ts) started as a deployment would run them,
 * their output kept for the failure message, killed at the end.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { API_PREFIX } from '../rest/dispatch';

export interface Started {
  child: ChildProcess;
  /** The console's base URL ('' for a worker). */
  url: string;
  /** Resolves with the exit code (137 for SIGKILL or a test crash hook). */
  exited: Promise<number>;
}

export class Cluster {
  private readonly children: ChildProcess[] = [];
  readonly logs: string[] = [];

  /** Start `script` (console-process or worker-main) and wait until it says it is up. */
  start(script: string, env: Record<string, string>, name: string): Promise<Started> {
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, ['--import', 'tsx', script], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
      this.children.push(child);
      let out = '';
      let up = false;
      const exited = new Promise<number>((done) => child.on('exit', (code, signal) => done(code ?? (signal === 'SIGKILL' ? 137 : 1))));
      const timer = setTimeout(() => reject(new Error(`${name} did not start:\n${out}`)), 120_000);
      const onData = (b: Buffer) => {
        out = (out + b).slice(-20_000);
        this.logs.push(`[${name}] ${String(b).slice(0, 400)}`);
        if (this.logs.length > 200) this.logs.shift();
        const m = /LISTEN (\S+)/.exec(out) ?? /keelson worker: applying to/.exec(out);
        if (m && !up) {
          up = true;
          clearTimeout(timer);
          resolve({ child, url: m[1] ?? '', exited });
        }
      };
      child.stdout!.on('data', onData);
      child.stderr!.on('data', onData);
      void exited.then((code) => {
        if (!up) reject(new Error(`${name} exited (${code}) before it was up:\n${out}`));
      });
    });
  }

  killAll(): void {
    for (const c of this.children) if (c.exitCode === null) c.kill('SIGKILL');
  }
}

/** A REST call as the tests' bearer user. */
export async function restCall(base: string, method: string, path: string, body?: unknown, user = 'Alice'): Promise<{ status: number; body: { data?: any; content?: { message?: string } } }> { // eslint-disable-line @typescript-eslint/no-explicit-any
  const res = await fetch(`${base}${API_PREFIX}${path}`, {
    method,
    headers: { authorization: `Bearer test:${user}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, body: (await res.json()) as { data?: any; content?: { message?: string } } }; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/** One ConfigMap per tier, so each service a test creates is an instance of its own. */
export const TIERED_OFFERING = `kind: bundle
metadata: {namespace: acme-web, name: webshop}
components:
  - name: web
    code:
      type: raw
      params:
        manifest: |
          apiVersion: v1
          kind: ConfigMap
          metadata: {name: shop-{{ .Labels.tier }}}
---
kind: service
metadata: {namespace: acme-web, name: webshop}
contexts:
  - name: all
    allocation: {bundle: webshop, keys: ['{{ .Labels.tier }}']}
`;

/**
 * The tenant the reliability tests work in, over a seeded database: tenant
 * acme (Alice) with an environment on k8s-example, the tiered offering, and
 * the demo plus the offering accepted whole as the baseline, so each
 * service's revision changes only its own section.
 */
export async function prepareTenant(consoleUrl: string, editor: { policy: any; revisions: any; resolution: { close(): Promise<void> } }): Promise<number> { // eslint-disable-line @typescript-eslint/no-explicit-any
  const must = async (p: Promise<{ status: number; body: unknown }>, status: number) => {
    const r = await p;
    if (r.status !== status) throw new Error(`${r.status}: ${JSON.stringify(r.body)}`);
  };
  await must(restCall(consoleUrl, 'POST', '/tenant/acme', { namespaces: ['acme-web'] }), 201);
  await must(restCall(consoleUrl, 'POST', '/tenant/acme/account/main', {}), 201);
  await must(restCall(consoleUrl, 'POST', '/tenant/acme/account/main/environment/prod', { cluster: 'k8s-example' }), 201);
  const sam = { id: 'local:Sam', name: 'Sam', labels: {}, provider: 'test' as const };
  const w = await editor.policy.apply(sam, { text: TIERED_OFFERING, baseGeneration: await editor.policy.head(sam) });
  const baseline = await editor.revisions.ensureForGeneration(w.generation);
  const d = await editor.revisions.decide(sam, { revisionId: baseline.id, decision: 'accept' });
  if (d.status !== 'accepted') throw new Error(`baseline ${baseline.id}: ${d.status}`);
  await editor.resolution.close();
  return baseline.id as number;
}

/** Create service svc-<tier> and accept its revision (Sam: its Kubernetes namespace is outside the tenant's). */
export async function createAndAccept(createAt: string, acceptAt: string, tier: string): Promise<number> {
  const created = await restCall(createAt, 'POST', `/tenant/acme/service/svc-${tier}`, { service: 'acme-web/webshop', environment: 'main/prod', labels: { tier } });
  if (created.status !== 202) throw new Error(`create svc-${tier}: ${created.status} ${JSON.stringify(created.body)}`);
  const id = created.body.data.revision.id as number;
  const decided = await restCall(acceptAt, 'PUT', `/tenant/acme/service/svc-${tier}/revision/${id}?accept=true`, undefined, 'Sam');
  if (decided.status !== 200) throw new Error(`accept ${id}: ${decided.status} ${JSON.stringify(decided.body)}`);
  return id;
}
