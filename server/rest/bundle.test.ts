/**
 * Creating a service from a bundle (Axebow §5.9.11): a multipart upload of
 * a zip whose deployment module holds the claim, with the offering it
 * needs carried inline — and every way a bundle can be wrong, refused with
 * the file and line, writing nothing.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { deflateRawSync } from 'node:zlib';
import { writeZip } from '../loader/zip';
import { restHarness, type RestAnswer } from '../testing/rest';
import { API_PREFIX } from './dispatch';

type Body = RestAnswer['body'];

const zip = (files: Record<string, string>) =>
  writeZip(
    Object.entries(files).map(([path, text]) => ({ path, bytes: new TextEncoder().encode(text) })),
    (b) => deflateRawSync(b),
  );

const CLAIM = (user = 'Alice', name = 'shop') => `kind: claim
metadata: {namespace: acme-web, name: ${name}}
user: ${user}
service: webshop
labels: {tier: gold}
`;
const OFFERING = `kind: bundle
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
    allocation: {bundle: webshop}
`;

describe('REST API: a service from a bundle', () => {
  const sam = { id: 'local:Sam', name: 'Sam', labels: {}, provider: 'test' as const };
  const api = restHarness({ freeNamespaces: ['acme-*'] });

  const upload = async (user: string | null, name: string, bundle: Uint8Array | null, spec?: unknown, query = ''): Promise<{ status: number; body: Body }> => {
    const form = new FormData();
    if (bundle) form.set('bundle', new Blob([Uint8Array.from(bundle)], { type: 'application/zip' }), 'bundle.zip');
    if (spec !== undefined) form.set('spec', typeof spec === 'string' ? spec : JSON.stringify(spec));
    const res = await fetch(`${api.url}/tenant/acme/service/${name}${query}`, {
      method: 'POST',
      headers: user ? { authorization: `Bearer test:${user}` } : {},
      body: form,
    });
    return { status: res.status, body: (await res.json()) as Body };
  };
  const head = () => api.services.policy.head(sam);

  test('the tenant, with an environment', async () => {
    for (const [path, body] of [
      ['/tenant/acme', { namespaces: ['acme-web'] }],
      ['/tenant/acme/account/main', {}],
      ['/tenant/acme/account/main/environment/prod', { cluster: 'k8s-example' }],
    ] as const) {
      const r = await fetch(`${api.url}${path}`, { method: 'POST', headers: { authorization: 'Bearer test:Alice', 'content-type': 'application/json' }, body: JSON.stringify(body) });
      assert.equal(r.status, 201, path);
    }
  });

  test('refused bundles name the problem (file, line) and write nothing', async () => {
    const before = await head();
    const cases: [string, Uint8Array | null, RegExp, unknown?][] = [
      ['not a zip', new TextEncoder().encode('plain text, not an archive, long enough to search'), /bundle cannot be read: This is not a zip archive/],
      ['no bundle part', null, /form bundle: must be a file part|form bundle/],
      ['no deployment module', zip({ 'lib/offer.yaml': OFFERING }), /has no deployment module: put the claim in deployment\/\*\.yaml/],
      ['a CUE deployment', zip({ 'deployment/manifest.cue': 'package deployment' }), /deployment module is CUE/],
      ['a path leaving the bundle', zip({ '../deployment/x.yaml': CLAIM() }), /could leave the bundle/],
      ['two claims', zip({ 'deployment/a.yaml': CLAIM(), 'deployment/b.yaml': CLAIM('Alice', 'shop') }), /exactly one claim \(found 2: deployment\/a\.yaml:1, deployment\/b\.yaml:1\)/],
      ['a claim outside deployment/', zip({ 'deployment/a.yaml': CLAIM(), 'lib/b.yaml': CLAIM('Alice', 'other') }), /lib\/b\.yaml: claim acme-web\/other is outside the deployment module/],
      ['a claim for someone else', zip({ 'deployment/a.yaml': CLAIM('Bob') }), /deployment\/a\.yaml, line 1: the claim acts for Bob, but a service acts for who creates it; set "user" to Alice/],
      ['a claim named otherwise', zip({ 'deployment/a.yaml': CLAIM('Alice', 'other') }), /the claim is named other, but the service is created as shop/],
      ['bad YAML', zip({ 'deployment/a.yaml': CLAIM(), 'lib/broken.yaml': 'kind: bundle\nmetadata: {namespace: acme-web, name: x}\ncomponents: [\n' }), /^lib\/broken\.yaml, line \d+:/],
      ['an unknown field', zip({ 'deployment/a.yaml': CLAIM() + 'colour: red\n' }), /^deployment\/a\.yaml, line 6: .*colour/],
      ['bad spec JSON', zip({ 'deployment/a.yaml': CLAIM() }), /form spec: must be JSON/, '{not json'],
      ['an unknown spec field', zip({ 'deployment/a.yaml': CLAIM() }), /form spec/, { cost: 1 }],
    ];
    for (const [what, bundle, re, spec] of cases) {
      const r = await upload('Alice', 'shop', bundle, spec);
      assert.equal(r.status, 400, `${what}: ${JSON.stringify(r.body)}`);
      assert.match(r.body.content!.message!, re, what);
    }
    assert.equal(await head(), before, 'nothing was written');
    // Not a form and not JSON: the route says what it takes.
    const text = await fetch(`${api.url}/tenant/acme/service/shop`, { method: 'POST', headers: { authorization: 'Bearer test:Alice', 'content-type': 'text/plain' }, body: 'hi' });
    assert.equal(text.status, 415);
    assert.match(((await text.json()) as Body).content!.message!, /application\/json or multipart\/form-data/);
  });

  test('who may not: anonymous (401), outsiders (403)', async () => {
    const bundle = zip({ 'deployment/a.yaml': CLAIM() });
    assert.equal((await upload(null, 'shop', bundle)).status, 401);
    assert.equal((await upload('nina', 'shop', zip({ 'deployment/a.yaml': CLAIM('nina') }))).status, 403);
  });

  test('dry run, then the real create: the claim and the inline offering in one generation', async () => {
    const bundle = zip({ 'deployment/main.yaml': CLAIM(), 'lib/offer.yaml': OFFERING, 'README.md': '# ignored' });
    // The tenant's selectors read the spec's meta.
    const rules = { selectEnvironmentService: [{ reason: 'web team services only', sel: ['$.service.meta.team', 'web', '::eq'] }] };
    const set = await fetch(`${api.url}/tenant/acme`, { method: 'PATCH', headers: { authorization: 'Bearer test:Alice', 'content-type': 'application/json' }, body: JSON.stringify({ rules }) });
    assert.equal(set.status, 200);
    const ops = await upload('Alice', 'shop', bundle, { environment: 'main/prod', meta: { team: 'ops' } }, '?dryrun=true');
    assert.equal(ops.status, 200, JSON.stringify(ops.body));
    assert.equal(ops.body.data.selection.chosen, null, 'the ops team’s service matches no selector');
    assert.match(ops.body.data.selection.table[0].reasons[0], /web team services only" is false/);
    const before = await head();
    const dry = await upload('Alice', 'shop', bundle, { environment: 'main/prod', meta: { team: 'web' } }, '?dryrun=true');
    assert.equal(dry.status, 200, JSON.stringify(dry.body));
    assert.ok(dry.body.data.preview.changedClaims.includes('acme-web/shop'), JSON.stringify(dry.body.data.preview));
    assert.equal(await head(), before, 'a dry run writes nothing');

    const made = await upload('Alice', 'shop', bundle, { environment: 'main/prod', meta: { team: 'web' }, comment: 'first shop' });
    assert.equal(made.status, 202, JSON.stringify(made.body));
    const generation = made.body.data.generation as number;
    const g = await api.services.policy.getGeneration(sam, generation);
    assert.equal(g.info?.author, 'Alice');
    assert.deepEqual(
      g.info!.changes.map((c) => `${c.op} ${c.kind}/${c.namespace}/${c.name}`).sort(),
      ['create bundle/acme-web/webshop', 'create claim/acme-web/shop', 'create service/acme-web/webshop'],
    );
    const view = await api.services.deployments.get({ id: 'local:Alice', name: 'Alice', labels: {}, provider: 'test' }, { tenant: 'acme', name: 'shop' });
    assert.equal(view.outcome?.status, 'resolved', JSON.stringify(view.outcome));
    assert.equal(view.outcome?.user, 'Alice');
    assert.equal(made.body.data.selection.chosen.environment, 'main/prod');
    // Created once: the same name again is a conflict.
    const again = await upload('Alice', 'shop', bundle);
    assert.equal(again.status, 409);
  });

  test('the inline objects are written as they were read: a YAML list whose items share an anchor is created whole', async () => {
    // The second item names its namespace by an alias of the first's anchor: read as one file it is whole,
    // but its own text alone is not (a create that wrote the objects out as text and read them again failed here).
    const offering = `- kind: bundle
  metadata: {namespace: &ns acme-web, name: cart}
  components:
    - name: web
      code:
        type: raw
        params:
          manifest: |
            apiVersion: v1
            kind: ConfigMap
            metadata: {name: cart}
- kind: service
  metadata: {namespace: *ns, name: cart}
  contexts:
    - name: all
      allocation: {bundle: cart}
`;
    const claim = `kind: claim
metadata: {namespace: acme-web, name: cart}
user: Alice
service: cart
labels: {note: "yes", version: "1.0", empty: "", text: "a: b\\n---\\nc"}
`;
    const made = await upload('Alice', 'cart', zip({ 'deployment/main.yaml': claim, 'lib/offer.yaml': offering }), { environment: 'main/prod', meta: { team: 'web' } });
    assert.equal(made.status, 202, JSON.stringify(made.body));
    const g = await api.services.policy.getGeneration(sam, made.body.data.generation as number);
    assert.deepEqual(
      g.info!.changes.map((c) => `${c.op} ${c.kind}/${c.namespace}/${c.name}`).sort(),
      ['create bundle/acme-web/cart', 'create claim/acme-web/cart', 'create service/acme-web/cart'],
    );
    const alice = { id: 'local:Alice', name: 'Alice', labels: {}, provider: 'test' as const };
    const view = await api.services.deployments.get(alice, { tenant: 'acme', name: 'cart' });
    assert.equal(view.outcome?.status, 'resolved', JSON.stringify(view.outcome));
    // Label values that YAML would read otherwise unquoted keep their exact text.
    const labels = (await api.services.policy.getObject(alice, { kind: 'claim', namespace: 'acme-web', name: 'cart' })).spec as { labels: Record<string, string> };
    assert.deepEqual(
      { note: labels.labels.note, version: labels.labels.version, empty: labels.labels.empty, text: labels.labels.text },
      { note: 'yes', version: '1.0', empty: '', text: 'a: b\n---\nc' },
    );
  });

  test('the OpenAPI document describes the bundle upload', async () => {
    const doc = (await (await fetch(`${api.url}/openapi.json`)).json()) as any; // eslint-disable-line @typescript-eslint/no-explicit-any
    const content = doc.paths[`${API_PREFIX}/tenant/{tenant}/service/{name}`].post.requestBody.content;
    assert.ok(content['application/json'], 'JSON still');
    assert.deepEqual(content['multipart/form-data'].schema.required, ['bundle']);
    assert.equal(content['multipart/form-data'].schema.properties.bundle.format, 'binary');
  });
});
