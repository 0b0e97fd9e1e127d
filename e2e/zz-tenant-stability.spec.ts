/**
 * Issue 35, item 1, in the browser-served console: a tenant's change never
 * breaks someone else's running claim. The platform's `social/prod` (the
 * seeded demo) is deployed to the GitOps repository; then Sam creates two
 * services of a new tenant through the REST simple form whose parameters
 * conflict with it on the shared twitter_stats instances. Each create answers
 * 422 ServiceError naming social/prod, and social/prod keeps its instances —
 * on its claim page, in the revisions' plans and in the repository.
 * server/rest/tenant-stability.test.ts is the same scenario without a browser.
 *
 * It runs last (zz-*) on the shared server, so it starts from whatever the
 * specs before it left: it deploys the newest policy itself rather than
 * assuming the seed's first revision.
 */
import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { readTrackedFiles } from '../server/apply/gitops/actuator';
import { signIn } from './fixtures';

const GITOPS = join(process.env.E2E_DATA_DIR!, 'gitops');
/** This spec's own tenant and namespace: no other spec creates it. */
const TENANT = 'stab35';

type Instance = { key: string; code?: unknown };
type Revision = { id: number | null; status: string };

/** A tRPC query as the signed-in user (the console's own GET, with its session cookie). */
async function query<T>(page: Page, path: string, input?: unknown): Promise<T> {
  const url = `/api/trpc/${path}${input === undefined ? '' : `?input=${encodeURIComponent(JSON.stringify({ json: input }))}`}`;
  const res = await page.request.get(url);
  expect(res.status(), `${path} answers`).toBe(200);
  return ((await res.json()) as { result: { data: { json: T } } }).result.data.json;
}

/** A REST call from the console's own page (same origin, the session cookie), as a script in the console would make it. */
async function rest(page: Page, method: string, path: string, body?: unknown): Promise<{ status: number; json: { code?: string; content?: Record<string, unknown> } & Record<string, unknown> }> {
  return page.evaluate(
    async ([m, p, b]) => {
      const res = await fetch(`/api/1.0-beta${p}`, { method: m, headers: b === undefined ? {} : { 'content-type': 'application/json' }, body: b === undefined ? undefined : JSON.stringify(b) });
      return { status: res.status, json: await res.json() };
    },
    [method, path, body] as const,
  );
}

/** social/prod's instances as the console resolves them now: key and rendered code (what would be deployed). */
async function prodInstances(page: Page): Promise<Instance[]> {
  const claim = await query<{ outcome: { status: string }; instances: Instance[] }>(page, 'resolution.claim', { namespace: 'social', name: 'prod' });
  expect(claim.outcome.status, 'social/prod resolves').toBe('resolved');
  return claim.instances.map((i) => ({ key: i.key, code: i.code })).sort((a, b) => a.key.localeCompare(b.key));
}

/** The revision of a generation once computed (the server computes it after a save; wait for it, not for a time). */
async function revisionOf(page: Page, generation: number): Promise<number> {
  let id: number | null = null;
  await expect
    .poll(async () => (id = (await query<Revision>(page, 'revisions.byGeneration', { generation, wait: true })).id), { message: `generation ${generation} has a revision`, timeout: 60_000 })
    .not.toBeNull();
  return id!;
}

/**
 * Deploy the newest policy: open the head generation's revision, accept what
 * is pending (Sam is a domain admin: every section is his to accept) and wait
 * until it is applied, or a no-op because what it says is already deployed.
 */
async function deployHead(page: Page) {
  // The revisions list computes the newest revision if no one has yet.
  await page.goto('/revisions');
  await expect(page.getByTestId('revisions-table')).toBeVisible();
  const head = await query<number>(page, 'policy.head');
  await page.goto(`/revisions/${await revisionOf(page, head)}`);
  const status = page.getByTestId('revision-status');
  await expect(status).toBeVisible();
  if ((await status.textContent()) === 'pending') {
    const accept = page.getByRole('button', { name: /^Accept / });
    await expect(accept.first()).toBeEnabled();
    for (const name of await accept.allTextContents()) {
      await page.getByRole('button', { name }).click();
      await expect(page.getByTestId('decision-status')).toContainText(/Accepted section|queued for apply|All sections accepted/);
    }
  }
  await expect(status).toHaveText(/^(applied|no-op)$/, { timeout: 60_000 });
}

test('a tenant’s conflicting creates answer 422 naming social/prod; social/prod keeps its instances on its page, in the plans and in the repository', async ({ page }) => {
  test.setTimeout(240_000);
  await signIn(page, 'sam');
  await deployHead(page);

  // What the platform runs: social/prod's instances, as its page shows them, and the repository's files.
  const before = await prodInstances(page);
  expect(before.length, 'social/prod deploys instances').toBeGreaterThan(0);
  await page.goto('/claims/social/prod');
  await expect(page.getByTestId('claim-status')).toHaveText('resolved');
  await expect(page.getByTestId('claim-instances').getByRole('row')).toHaveCount(before.length + 1);
  const repoBefore = await readTrackedFiles(GITOPS);
  expect(Object.keys(repoBefore).length, 'the repository holds the deployment').toBeGreaterThan(0);
  expect(Object.values(repoBefore).some((c) => c.includes('chart: tweeviz')), 'social/prod’s release is in the repository').toBe(true);

  // A tenant of Sam's own, with an environment on the demo's cluster.
  expect((await rest(page, 'POST', `/tenant/${TENANT}`, { namespaces: [TENANT] })).status).toBe(201);
  expect((await rest(page, 'POST', `/tenant/${TENANT}/account/main`, {})).status).toBe(201);
  expect((await rest(page, 'POST', `/tenant/${TENANT}/account/main/environment/dev`, { cluster: 'k8s-example' })).status).toBe(201);

  // Two creates of the demo's twitter_stats whose parameters differ from social/prod's on the instances they would share.
  const body = { deployment: { artifact: { ref: { name: 'twitter_stats', domain: 'social' } }, environment: 'main/dev', config: { parameter: { tsvisimage: 'demo11' } } } };
  const revisions: number[] = [];
  for (const [name, params] of [['api', 'wait=10'], ['api2', 'accept=true&wait=10']] as const) {
    const answer = await rest(page, 'POST', `/tenant/${TENANT}/service/${name}/simple?${params}`, body);
    // The create fails alone, with its own reason — never an "applied" for a claim that deploys nothing.
    expect(answer.status, JSON.stringify(answer.json)).toBe(422);
    expect(answer.json.code).toBe('ServiceError');
    const content = answer.json.content as { message: string; generation: number; revision: Revision; claim: { status: string } };
    expect(content.message).toMatch(new RegExp(`conflicting code parameters for instance '[^']+': claim '${TENANT}/${name}' renders values different from deployed claim 'social/prod', which keeps the instance`));
    expect(content.claim.status).toBe('error');
    // The answer's revision may itself be applied (a revision carries the whole generation); the claim's message never says so.
    expect(content.message).not.toMatch(/\bapplied\b/);
    revisions.push(content.revision.id ?? (await revisionOf(page, content.generation)));
  }

  // The tenant sees why on its claim's page: the error names the platform's claim.
  await page.goto(`/claims/${TENANT}/api2`);
  await expect(page.getByTestId('claim-status')).toHaveText('error');
  await expect(page.getByTestId('claim-error').first()).toContainText("deployed claim 'social/prod', which keeps the instance");

  // Whatever the accepted create leaves to apply has run before the repository is read.
  const newest = revisions[revisions.length - 1]!;
  await page.goto(`/revisions/${newest}`);
  await expect(page.getByTestId('revision-status')).toHaveText(/^(applied|no-op)$/, { timeout: 60_000 });

  // No revision of the creates touches an instance of social/prod: no detach, update or delete in its plan.
  const prodKeys = before.map((i) => i.key);
  for (const id of revisions) {
    await page.goto(`/revisions/${id}`);
    await expect(page.getByTestId('revision-status')).toBeVisible();
    const plan = page.getByTestId('plan-pages');
    await expect(plan).toBeVisible();
    for (const key of prodKeys) await expect(plan.locator(`button[title="${key}"]`), `revision ${id} shows no step on ${key}`).toHaveCount(0);
    // The page shows one page of a plan; the whole plan, asked key by key, has nothing on them either.
    for (const key of prodKeys) {
      for (const of of ['actions', 'steps'] as const) {
        const found = await query<{ total: number; actions?: { key: string }[]; steps?: { key: string }[] }>(page, 'revisions.planPage', { id, of, text: key, limit: 500 });
        const rows = found.actions ?? found.steps ?? [];
        expect(rows.length, 'every row containing the key came in one page').toBe(found.total);
        expect(rows.filter((r) => r.key === key), `revision ${id}'s ${of} on ${key}`).toEqual([]);
      }
    }
  }

  // social/prod's page still shows it resolved with the same instances rendering the same code.
  await page.goto('/claims/social/prod');
  await expect(page.getByTestId('claim-status')).toHaveText('resolved');
  await expect(page.getByTestId('claim-error')).toHaveCount(0);
  const rows = page.getByTestId('claim-instances').getByRole('row');
  await expect(rows).toHaveCount(before.length + 1);
  for (const key of prodKeys) await expect(page.getByTestId('claim-instances').getByText(key, { exact: true })).toBeVisible();
  expect(await prodInstances(page)).toEqual(before);

  // And the repository holds what it held.
  expect(await readTrackedFiles(GITOPS)).toEqual(repoBefore);
});
