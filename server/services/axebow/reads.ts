/**
 * What a tenant's member reads of a service: the list, the claim's view,
 * its scale and channels, a role's instances, and its logs (the apply
 * events Keelson has of it).
 */
import type { Claim } from '../../engine/model/kinds';
import type { MaybeActor } from '../actor';
import { notFound } from '../../errors';
import type { ClaimView } from '../resolution.types';
import { claimOf, signedIn, tenantAndHead, tenantOf, type Axebow } from './context';
import { channelsOf as channelsOfLabels } from './links';
import { serviceSummaries } from './service-summaries';
import type { ServiceLogs, ServiceSummary } from './types';

export async function list(cx: Axebow, actor: MaybeActor, tenant: string): Promise<readonly ServiceSummary[]> {
  const who = signedIn(actor, 'see services');
  const t = await tenantAndHead(cx, who, tenant, 'see its services');
  // The services are the claims the newest generation's resolution holds (every claim has an outcome there).
  return serviceSummaries((await cx.resolution.get(who)).state, t.namespaces);
}

export async function get(cx: Axebow, actor: MaybeActor, input: { tenant: string; name: string }, opts: { trace?: boolean } = {}): Promise<ClaimView> {
  const who = signedIn(actor, 'see services');
  const t = await tenantAndHead(cx, who, input.tenant, 'see its services');
  const o = await claimOf(cx, t, input.name);
  return cx.claims.get(who, { namespace: o.namespace, name: o.name, kind: 'claim' }, opts);
}

/** The replicas the service asks for: `replicas` (every role) and `replicas-<role>` labels (Axebow's #Scale). */
export async function scaleOf(cx: Axebow, actor: MaybeActor, input: { tenant: string; name: string }): Promise<Record<string, number>> {
  const who = signedIn(actor, 'see services');
  const t = await tenantOf(cx, who, input.tenant, 'see its services');
  const labels = ((await claimOf(cx, t, input.name)).spec as Claim).labels ?? {};
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(labels)) {
    const n = Number(v);
    if (!Number.isInteger(n) || n < 0) continue;
    if (k === 'replicas') out['*'] = n;
    else if (k.startsWith('replicas-')) out[k.slice('replicas-'.length)] = n;
  }
  return out;
}

/** The service's channels, from its `channel-<name>` labels; a duplex channel is both. */
export async function channelsOf(cx: Axebow, actor: MaybeActor, input: { tenant: string; name: string }): Promise<{ client: Record<string, { duplex: boolean }>; server: Record<string, { duplex: boolean }> }> {
  const who = signedIn(actor, 'see services');
  const t = await tenantOf(cx, who, input.tenant, 'see its services');
  const out = { client: {} as Record<string, { duplex: boolean }>, server: {} as Record<string, { duplex: boolean }> };
  for (const [name, role] of channelsOfLabels(((await claimOf(cx, t, input.name)).spec as Claim).labels)) {
    if (role !== 'server') out.client[name] = { duplex: role === 'duplex' };
    if (role !== 'client') out.server[name] = { duplex: role === 'duplex' };
  }
  return out;
}

/**
 * A role of the service: Keelson's component of that name among the
 * instances its claim uses; each instance is addressed by its deploy name.
 */
export async function role(cx: Axebow, actor: MaybeActor, input: { tenant: string; name: string; role: string; instance?: string }) {
  const who = signedIn(actor, 'see services');
  const t = await tenantOf(cx, who, input.tenant, 'see its services');
  const o = await claimOf(cx, t, input.name);
  const view = await cx.claims.get(who, { namespace: o.namespace, name: o.name, kind: 'claim' }, { trace: false });
  const mine = view.instances.filter((i) => i.component === input.role && (input.instance === undefined || i.deployName === input.instance));
  if (mine.length === 0) throw notFound(input.instance ? `Instance ${input.instance} of role ${input.role} of service ${input.name}` : `Role ${input.role} of service ${input.name}`);
  const states = new Map((await cx.repos.revisions.instanceStates(mine.map((i) => i.key))).map((x) => [x.key, x]));
  return {
    role: input.role,
    instances: mine.map((i) => ({
      id: i.deployName,
      key: i.key,
      cluster: `${i.target.clusterNamespace}/${i.target.cluster}`,
      namespace: i.target.namespace,
      code: i.code ? { type: i.code.type } : null,
      status: states.get(i.key)?.status ?? null,
      error: states.get(i.key)?.error ?? null,
    })),
  };
}

/**
 * The apply events of the service's instances, newest first, with each
 * instance's applied state: what Keelson knows of a service's logs (the
 * workloads' own logs stay on the clusters).
 */
export async function logs(cx: Axebow, actor: MaybeActor, input: { tenant: string; name: string; tail: number; role?: string; instance?: string; deltaSeconds?: number; now?: Date }): Promise<ServiceLogs> {
  const who = signedIn(actor, 'see service logs');
  const t = await tenantOf(cx, who, input.tenant, 'see its services');
  const o = await claimOf(cx, t, input.name);
  const view = await cx.claims.get(who, { namespace: o.namespace, name: o.name, kind: 'claim' }, { trace: false });
  // One role's, or one instance's (Axebow's container logs: Keelson's are the apply events of that instance).
  const chosen = view.instances.filter((i) => i.code !== null && (input.role === undefined || i.component === input.role) && (input.instance === undefined || i.deployName === input.instance));
  if (chosen.length === 0 && (input.role !== undefined || input.instance !== undefined)) {
    throw notFound(input.instance ? `Instance ${input.instance} of role ${input.role} of service ${input.name}` : `Role ${input.role} of service ${input.name}`);
  }
  const keys = chosen.map((i) => i.key);
  const since = input.deltaSeconds === undefined ? undefined : (input.now ?? new Date()).getTime() - input.deltaSeconds * 1000;
  const states = new Map((await cx.repos.revisions.instanceStates(keys)).map((s) => [s.key, s]));
  const events = (
    await Promise.all(keys.map(async (key) => (await cx.repos.revisions.eventsForInstance(key, input.tail)).map((e) => ({ at: e.at, revisionId: e.revisionId, kind: e.kind, instance: key, message: e.message }))))
  )
    .flat()
    .filter((e) => since === undefined || e.at.getTime() >= since)
    .sort((a, b) => b.at.getTime() - a.at.getTime())
    .slice(0, input.tail);
  return {
    instances: chosen.map((i) => ({ key: i.key, deployName: i.deployName, component: i.component, status: states.get(i.key)?.status ?? null, error: states.get(i.key)?.error ?? null })),
    events,
  };
}
