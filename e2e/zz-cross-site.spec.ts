import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { deflateRawSync } from 'node:zlib';
import { expect, test, type Page } from '@playwright/test';
import { writeZip } from '../server/loader/zip';
import { signIn } from './fixtures';

/**
 * A page on another origin — another port of the same host, so same-site:
 * the browser sends the console's SameSite=Lax session cookie along — tries
 * to create a service in the signed-in user's name, as a form post and as a
 * fetch (multipart with `?accept=true` needs no CORS preflight). Both are
 * refused and nothing is created; the same create from the console's own
 * page works.
 */
test.describe.configure({ mode: 'serial' });

const TENANT = 'alice-xsite';

/** Alice's claim on the demo's twitter_stats (her demo claim's image: the same instances, the same parameters), as a bundle's deployment module. */
function bundle(name: string): string {
  const claim = `kind: claim\nmetadata: {namespace: ${TENANT}, name: ${name}}\nuser: Alice\nservice: social/twitter_stats\nlabels: {tsvisimage: demo12}\n`;
  return Buffer.from(writeZip([{ path: 'deployment/main.yaml', bytes: new TextEncoder().encode(claim) }], (b) => deflateRawSync(b))).toString('base64');
}

/** The script both pages run: a multipart create of `name`, as a form submit or a fetch. */
function createScript(app: string, name: string, how: 'form' | 'fetch'): string {
  return `
    const bytes = Uint8Array.from(atob(${JSON.stringify(bundle(name))}), (c) => c.charCodeAt(0));
    const file = new File([bytes], 'bundle.zip', { type: 'application/zip' });
    const url = ${JSON.stringify(`${app}/api/1.0-beta/tenant/${TENANT}/service/${name}?accept=true`)};
    const spec = JSON.stringify({ environment: 'main/prod' });
    if (${JSON.stringify(how)} === 'form') {
      const form = document.createElement('form');
      form.method = 'POST';
      form.enctype = 'multipart/form-data';
      form.action = url;
      const input = document.createElement('input');
      input.type = 'file';
      input.name = 'bundle';
      const dt = new DataTransfer();
      dt.items.add(file);
      input.files = dt.files;
      const text = document.createElement('input');
      text.name = 'spec';
      text.value = spec;
      form.append(input, text);
      document.body.append(form);
      form.submit();
    } else {
      const body = new FormData();
      body.set('bundle', file);
      body.set('spec', spec);
      // Another origin's page gets an opaque answer: it learns nothing, but the request was sent all the same.
      window.sent = fetch(url, { method: 'POST', body, credentials: 'include', mode: 'no-cors' }).then((r) => (r.type === 'opaque' ? 'sent' : String(r.status)), (e) => String(e));
    }`;
}

/** A call from the console's own page (same origin, the session cookie). */
async function own(page: Page, method: string, path: string, body?: unknown): Promise<{ status: number; json: { data?: unknown } }> {
  return page.evaluate(
    async ([m, p, b]) => {
      const res = await fetch(`/api/1.0-beta${p}`, { method: m, headers: b === undefined ? {} : { 'content-type': 'application/json' }, body: b === undefined ? undefined : JSON.stringify(b) });
      return { status: res.status, json: await res.json() };
    },
    [method, path, body] as const,
  );
}

const servicesOf = async (page: Page) => ((await own(page, 'GET', `/tenant/${TENANT}/service`)).json.data as { name: string }[]).map((s) => s.name).sort();

let other: Server;
let otherOrigin = '';

test.beforeAll(async () => {
  // The other origin: a page server on another loopback port, serving whatever page the test asks for.
  other = createServer((req, res) => {
    const html = decodeURIComponent(new URL(req.url ?? '/', 'http://x').searchParams.get('html') ?? '');
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(html);
  });
  await new Promise<void>((ok) => other.listen(0, ok));
  otherOrigin = `http://localhost:${(other.address() as AddressInfo).port}`;
});
test.afterAll(() => new Promise<void>((ok) => other.close(() => ok())));

test('a page on another origin cannot create a service with the signed-in user’s cookie; the console’s own page can', async ({ page, context, baseURL }) => {
  const app = baseURL!;
  await signIn(page, 'alice');
  for (const [path, body] of [
    [`/tenant/${TENANT}`, { namespaces: [TENANT] }],
    [`/tenant/${TENANT}/account/main`, {}],
    [`/tenant/${TENANT}/account/main/environment/prod`, { cluster: 'k8s-example' }],
  ] as const) {
    const r = await own(page, 'POST', path, body);
    expect(r.status, `${path}: ${JSON.stringify(r.json)}`).toBe(201);
  }
  expect(await servicesOf(page)).toEqual([]);

  // The other origin's page, in the same browser (Alice's cookie is there), first as a form post…
  const attacker = await context.newPage();
  const answer = attacker.waitForResponse((r) => r.url().includes('/service/by-form'));
  await attacker.goto(`${otherOrigin}/?html=${encodeURIComponent(`<!doctype html><body><script>${createScript(app, 'by-form', 'form')}</script></body>`)}`);
  const refused = await answer;
  // Same-site: the browser did send Alice's session cookie with it; the console refused it all the same.
  expect((await refused.request().allHeaders()).cookie ?? '').toContain('next-auth.session-token=');
  expect(refused.status()).toBe(403);
  expect(await refused.text()).toContain("must come from the console's own pages");
  // …then as a fetch, whose answer the page cannot read but whose request still arrives.
  const fetched = attacker.waitForResponse((r) => r.url().includes('/service/by-fetch'));
  await attacker.goto(`${otherOrigin}/?html=${encodeURIComponent(`<!doctype html><body><script>${createScript(app, 'by-fetch', 'fetch')}</script></body>`)}`);
  expect((await fetched).status()).toBe(403);
  expect(await attacker.evaluate(() => (window as unknown as { sent: Promise<string> }).sent)).toBe('sent');
  await attacker.close();
  expect(await servicesOf(page), 'nothing was created').toEqual([]);

  // The same create from the console's own page works.
  await page.evaluate(createScript(app, 'from-console', 'fetch'));
  expect(await page.evaluate(() => (window as unknown as { sent: Promise<string> }).sent)).toBe('202');
  expect(await servicesOf(page)).toEqual(['from-console']);
});
