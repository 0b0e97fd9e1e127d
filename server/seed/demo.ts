/**
 * The demo policy loaded into an empty database on first start: Aptomi's
 * twitter-analytics example, then its guestbook example, as two generations
 * so the history page has something to compare. Aptomi's cluster has no
 * prices or marks; the demo's (demo-cluster.yaml) adds them so revisions
 * show costs and quota checks.
 *
 * The console's own demo (`npm start`) adds a third generation with one
 * example of each other source (demo-sources.yaml) and starts deployed, so
 * a newcomer sees all five systems and previews compare against something.
 * Tests that only need Aptomi's examples seed the first two.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { formatDiagnostic, hasErrors } from '../engine/diagnostics';
import { loadObjects } from '../engine/model/validate';
import { loadPolicyFiles } from '../loader/files';
import type { Repos } from '../repo/types';
import type { Actor } from '../services/actor';
import type { Services } from '../services';

const EXAMPLES = join(process.cwd(), 'corpus/aptomi/examples');
const HUB = join(process.cwd(), 'corpus/capact/pkg/sdk/renderer/argo/testdata/hub');

export const DEMO_STEPS = [
  {
    message: 'Demo: Aptomi twitter-analytics example',
    paths: [join(EXAMPLES, 'twitter-analytics/policy'), join(EXAMPLES, 'twitter-analytics/policy/clusters/clusters.yaml.template')],
  },
  { message: 'Demo: Aptomi guestbook example', paths: [join(EXAMPLES, 'guestbook')] },
];

/** Capact (a Hub of one Interface, two Implementations, a Global policy), a Landscaper data flow and a DM deployment. */
export const DEMO_SOURCES_STEP = {
  message: 'Demo: a Capact Hub and Global policy, a Landscaper data flow, a DM deployment',
  paths: [
    join(HUB, 'interface/database/postgresql/install.yaml'),
    join(HUB, 'implementation/bitnami/postgresql/install.yaml'),
    join(HUB, 'implementation/gcp/cloudsql/postgresql/install.yaml'),
    join(process.cwd(), 'server/seed/demo-sources.yaml'),
  ],
};

/**
 * Seeds only an empty database (generation 0); returns the generations
 * written. `allSources`: the console's demo, with DEMO_SOURCES_STEP too.
 */
export async function seedDemo(repos: Repos, author = 'keelson', opts: { allSources?: boolean } = {}): Promise<number[]> {
  if ((await repos.policy.head()) !== 0) return [];
  const written: number[] = [];
  for (const step of opts.allSources ? [...DEMO_STEPS, DEMO_SOURCES_STEP] : DEMO_STEPS) {
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

/** Tenant acme's services: two claims of its own offering (demo-sources.yaml), web's client channel linked to api's server channel. */
const DEMO_TENANT: { name: string; account: string; environments: string[]; services: { name: string; labels: Record<string, string> }[] } = {
  name: 'acme',
  account: 'main',
  environments: ['prod', 'dev'],
  services: [
    { name: 'api', labels: { role: 'api', 'channel-in': 'server' } },
    { name: 'web', labels: { role: 'web', 'channel-out': 'client' } },
  ],
};

/**
 * An Axebow tenant as a user makes one, through the services (tenants,
 * estate, deployments, links), by the demo's domain admin `owner`: the
 * tenant, its account and environments on the demo cluster, its two
 * services (created together, so one generation) and their link.
 */
async function seedDemoTenant(services: Services, owner: string): Promise<void> {
  const user = (await services.users.policyUsers()).find((u) => u.name === owner);
  if (!user) throw new Error(`the demo tenant's owner ${owner} is not a user`);
  const actor: Actor = { id: `local:${user.name}`, name: user.name, labels: user.labels, provider: 'local' };
  const t = DEMO_TENANT;
  await services.tenants.create(actor, { name: t.name, namespaces: [t.name] });
  await services.estate.addAccount(actor, { tenant: t.name, account: t.account, marks: {}, labels: {} });
  for (const environment of t.environments) {
    await services.estate.createEnvironment(actor, { tenant: t.name, account: t.account, environment, cluster: 'k8s-example', marks: {}, labels: {}, meta: {} });
  }
  await Promise.all(
    t.services.map((svc) =>
      services.deployments.create(actor, { tenant: t.name, name: svc.name, service: 'webapp', environment: `${t.account}/prod`, labels: svc.labels, dryrun: false, accept: false }),
    ),
  );
  await services.links.link(actor, { tenant: t.name, client: { service: 'web', channel: 'out' }, server: { tenant: t.name, service: 'api', channel: 'in' } });
}

/**
 * The console's demo after seedDemo(…, {allSources}): Sam's tenant, then
 * the demo starts deployed — the head's revision (#1) is accepted in every
 * section, so the apply worker deploys it and a newcomer's first preview
 * compares against a running deployment, not an empty one. The seed
 * accepts as the server itself (as it wrote the generations), not as a
 * user. Returns the accepted revision's id.
 */
export async function deployDemo(repos: Repos, services: Services, author = 'keelson'): Promise<number> {
  await seedDemoTenant(services, 'Sam');
  const rev = await services.revisions.ensureForGeneration(await repos.policy.head());
  if (rev.status !== 'pending') return rev.id;
  const pending = (await repos.revisions.sections([rev.id])).filter((s) => s.status === 'pending').map((s) => s.namespace);
  const r = await repos.revisions.decide({ revisionId: rev.id, namespaces: pending, decision: 'accept', actor: author, comment: 'the demo starts deployed' });
  if (r.status !== 'ok') throw new Error(`Could not accept the demo's revision ${rev.id}: ${r.status === 'conflict' ? r.reason : 'not found'}`);
  return rev.id;
}
