/**
 * Links between services (Axebow §5.9.20–22): a client channel of one
 * service to a server channel of another, both in the same environment.
 *
 * Keelson services are claims, and a claim declares its channels with
 * labels `channel-<name>: client | server | duplex` (the bundle's templates
 * read them like any label). A link is recorded per tenant; removing a
 * service removes its links, and a revision that drops a linked channel is
 * refused unless it asks for the links to go (`remove_links=true`).
 */
import type { Claim } from '../../engine/model/kinds';
import type { LinkRow } from '../../repo/links.types';
import type { Repos } from '../../repo/types';
import type { AccessService } from '../access';
import type { Actor, MaybeActor } from '../actor';
import { AppError, notFound, unauthorized } from '../../errors';

export type ChannelRole = 'client' | 'server' | 'duplex';
const CHANNEL_PREFIX = 'channel-';

/** The channels a claim's labels declare. */
export function channelsOf(labels: Record<string, string> | null | undefined): Map<string, ChannelRole> {
  const out = new Map<string, ChannelRole>();
  for (const [k, v] of Object.entries(labels ?? {})) {
    if (k.startsWith(CHANNEL_PREFIX) && (v === 'client' || v === 'server' || v === 'duplex')) out.set(k.slice(CHANNEL_PREFIX.length), v);
  }
  return out;
}

export interface LinkInput {
  tenant: string;
  client: { service: string; channel: string };
  server: { tenant: string; service: string; channel: string };
}

export interface LinkView {
  id: number;
  spec: { client_tenant: string; client_service: string; client_channel: string; server_tenant: string; server_service: string; server_channel: string };
  meta: { createdBy: string; createdAt: Date };
  status: { linked: boolean };
}

export class LinkService {
  constructor(
    private readonly repos: Repos,
    private readonly access: AccessService,
  ) {}

  private async tenantOf(actor: MaybeActor, name: string, what: string): Promise<{ who: Actor; id: number; name: string; namespaces: string[] }> {
    if (!actor) throw unauthorized(what);
    const t = await this.repos.tenants.byName(name.toLowerCase());
    if (!t) throw notFound(`Tenant ${name}`);
    const member = (await this.repos.tenants.members(t.id)).some((m) => m.user === actor.name.toLowerCase());
    if (!member && !(await this.access.isDomainAdmin(actor))) throw new AppError('FORBIDDEN', `Only members of tenant ${t.name} may ${what}.`);
    return { who: actor, id: t.id, name: t.name, namespaces: (await this.repos.tenants.namespaces(t.id)).map((n) => n.namespace) };
  }

  private async claim(t: { name: string; namespaces: string[] }, service: string): Promise<Claim> {
    for (const namespace of t.namespaces) {
      const o = await this.repos.policy.getObject({ kind: 'claim', namespace, name: service });
      if (o) return o.spec as Claim;
    }
    throw notFound(`Service ${service} of tenant ${t.name}`);
  }

  private view(tenant: string, r: LinkRow, linked: boolean): LinkView {
    return {
      id: r.id,
      spec: { client_tenant: tenant, client_service: r.fromService, client_channel: r.fromChannel, server_tenant: tenant, server_service: r.toService, server_channel: r.toChannel },
      meta: { createdBy: r.createdBy, createdAt: r.createdAt },
      status: { linked },
    };
  }

  async link(actor: MaybeActor, input: LinkInput): Promise<LinkView> {
    const t = await this.tenantOf(actor, input.tenant, 'link its services');
    if (input.server.tenant.toLowerCase() !== t.name) {
      throw new AppError('INVALID_INPUT', `Links across tenants (${t.name} to ${input.server.tenant}) are not supported: both services must belong to tenant ${t.name}.`);
    }
    if (input.client.service === input.server.service) throw new AppError('INVALID_INPUT', `A service cannot link to itself (${input.client.service}).`);
    const client = await this.claim(t, input.client.service);
    const server = await this.claim(t, input.server.service);
    const c = channelsOf(client.labels).get(input.client.channel);
    const s = channelsOf(server.labels).get(input.server.channel);
    if (!c || c === 'server') {
      throw new AppError('INVALID_INPUT', `Service ${input.client.service} has no client channel ${input.client.channel} (declare it with the label channel-${input.client.channel}: client or duplex).`);
    }
    if (!s || s === 'client') {
      throw new AppError('INVALID_INPUT', `Service ${input.server.service} has no server channel ${input.server.channel} (declare it with the label channel-${input.server.channel}: server or duplex).`);
    }
    const envOf = (x: Claim) => x.labels?.environment ?? x.labels?.target ?? null;
    if (envOf(client) !== envOf(server)) {
      throw new AppError('CONFLICT', `Services ${input.client.service} and ${input.server.service} are not in the same environment (${envOf(client) ?? 'none'} and ${envOf(server) ?? 'none'}); only services deployed together may be linked.`, {
        details: { restCode: 'DifferentEnvironments' },
      });
    }
    const row = await this.repos.links.add({ tenantId: t.id, fromService: input.client.service, fromChannel: input.client.channel, toService: input.server.service, toChannel: input.server.channel, createdBy: t.who.name });
    if (!row) throw new AppError('CONFLICT', `That link exists already.`, { details: { restCode: 'LinkExists' } });
    return this.view(t.name, row, true);
  }

  async unlink(actor: MaybeActor, input: LinkInput): Promise<{ ok: true }> {
    const t = await this.tenantOf(actor, input.tenant, 'unlink its services');
    const gone = await this.repos.links.remove(t.id, { fromService: input.client.service, fromChannel: input.client.channel, toService: input.server.service, toChannel: input.server.channel });
    if (!gone) throw notFound(`Link ${input.client.service}:${input.client.channel} → ${input.server.service}:${input.server.channel}`);
    return { ok: true };
  }

  /** The links the service is part of; `linked` is false where an end no longer declares its channel. */
  async list(actor: MaybeActor, input: { tenant: string; service: string }): Promise<LinkView[]> {
    const t = await this.tenantOf(actor, input.tenant, 'see its links');
    await this.claim(t, input.service);
    const rows = (await this.repos.links.list(t.id)).filter((r) => r.fromService === input.service || r.toService === input.service);
    const channels = new Map<string, Map<string, ChannelRole>>();
    const channelsFor = async (service: string) => {
      if (!channels.has(service)) channels.set(service, channelsOf((await this.claim(t, service).catch(() => ({}) as Claim)).labels));
      return channels.get(service)!;
    };
    return Promise.all(rows.map(async (r) => this.view(t.name, r, (await channelsFor(r.fromService)).has(r.fromChannel) && (await channelsFor(r.toService)).has(r.toChannel))));
  }

  /**
   * Before a service's claim changes: the linked channels the new labels
   * drop. Refused (409 LinkedChannelRemoved) unless `removeLinks`; the
   * caller removes them after the write with `dropChannels`.
   */
  async droppedChannels(tenantId: number, service: string, before: Record<string, string> | null | undefined, after: Record<string, string> | null | undefined, removeLinks: boolean): Promise<string[]> {
    const now = channelsOf(after);
    const dropped = [...channelsOf(before).keys()].filter((c) => !now.has(c));
    const links = (await this.repos.links.list(tenantId)).filter((r) => (r.fromService === service && dropped.includes(r.fromChannel)) || (r.toService === service && dropped.includes(r.toChannel)));
    const linked = [...new Set(links.map((r) => (r.fromService === service ? r.fromChannel : r.toChannel)))].sort();
    if (linked.length > 0 && !removeLinks) {
      throw new AppError('CONFLICT', `The change drops channel ${linked.join(', ')} of service ${service}, which ${links.length === 1 ? 'a link uses' : `${links.length} links use`}; unlink first or ask for remove_links=true.`, {
        details: { restCode: 'LinkedChannelRemoved', channels: linked },
      });
    }
    return linked;
  }

  async dropChannels(tenantId: number, service: string, channels: readonly string[]): Promise<void> {
    for (const c of channels) await this.repos.links.removeForChannel(tenantId, service, c);
  }

  async dropService(tenantId: number, service: string): Promise<void> {
    await this.repos.links.removeForService(tenantId, service);
  }
}
