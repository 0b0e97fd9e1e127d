/** Registered resources through the REST API: uniqueness, sealed secrets, rights to reveal, in-use protection. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { restHarness } from '../testing/rest';
import { SEALED_DATA } from '../services/resources.types';
import { TEST_CA_CERT, TEST_OTHER_KEY, TEST_SHOP_CERT, TEST_SHOP_KEY } from '../testing/tls';


describe('REST API: registered resources', () => {
  const api = restHarness({ freeNamespaces: ['acme-*', 'beta-*'], secretKey: Buffer.alloc(32, 7) });
  const call = api.call;

  test('ports and domains are unique across tenants; secrets are sealed and revealed only to admins', async () => {
    assert.equal((await call('Alice', 'POST', '/tenant/acme', { namespaces: ['acme-web'] })).status, 201);
    assert.equal((await call('Bob', 'POST', '/tenant/beta', { namespaces: ['beta-web'] })).status, 201);
    assert.equal((await call('Alice', 'POST', '/tenant/acme/user/Carol?role=plain')).status, 201);
    assert.equal((await call('Carol', 'PUT', '/tenant/acme/user?role=plain')).status, 200);

    assert.equal((await call('Alice', 'POST', '/tenant/acme/port/web', { port: 30080 })).status, 201);
    const clash = await call('Bob', 'POST', '/tenant/beta/port/www', { port: 30080 });
    assert.equal(clash.status, 409);
    assert.equal(clash.body.code, 'ResourceTaken');
    assert.doesNotMatch(String(clash.body.content?.message), /acme/, 'whose it is stays private');
    assert.equal((await call('Alice', 'POST', '/tenant/acme/domain/shop', { domain: 'Shop.Example.com' })).status, 201);
    assert.equal((await call('Bob', 'POST', '/tenant/beta/domain/shop', { domain: 'shop.example.COM' })).body.code, 'ResourceTaken');
    assert.equal((await call('Alice', 'POST', '/tenant/acme/port/web', { port: 30081 })).status, 409, 'the name is taken in this tenant');
    const badBody = await call('Alice', 'POST', '/tenant/acme/port/api', { port: 70000 });
    assert.equal(badBody.status, 400);
    assert.equal((await call('Alice', 'POST', '/tenant/acme/port/api', { value: 'x' })).status, 400, "a secret's body is not a port's");

    const sec = await call('Alice', 'POST', '/tenant/acme/secret/db', { value: 'hunter2' });
    assert.equal(sec.status, 201);
    assert.deepEqual([sec.body.data?.hasSecret, sec.body.data?.secret, sec.body.data?.spec], [true, undefined, { data: SEALED_DATA }]);
    // At rest: sealed, not the value.
    const stored = await api.repos.resources.get((await api.repos.tenants.byName('acme'))!.id, 'secret', 'db');
    assert.ok(stored?.sealed?.startsWith('v1.'));
    assert.doesNotMatch(JSON.stringify(stored), /hunter2/);
    // A plain member sees that it exists, not what it is.
    const plain = await call('Carol', 'GET', '/tenant/acme/secret/db');
    assert.equal(plain.status, 200);
    assert.doesNotMatch(JSON.stringify(plain.body), /hunter2/);
    assert.equal((await call('Carol', 'GET', '/tenant/acme/secret/db?reveal=true')).status, 403);
    assert.equal((await call('Alice', 'GET', '/tenant/acme/secret/db?reveal=true')).body.data?.secret, 'hunter2');
    const list = await call('Alice', 'GET', '/tenant/acme/secret');
    assert.doesNotMatch(JSON.stringify(list.body), /hunter2/, 'lists never carry secrets');
    assert.equal((await call('Bob', 'GET', '/tenant/acme/secret/db')).status, 403, 'another tenant sees nothing');
  });

  test('a resource a service names cannot be unregistered; an update may move a port to a free one', async () => {
    const alice = { id: 'local:Alice', name: 'Alice', labels: {}, provider: 'test' as const };
    await api.services.policy.apply(alice, {
      text: 'kind: claim\nmetadata: {namespace: acme-web, name: shop}\nuser: Alice\nservice: social/twitter_stats\nlabels: {ingress: "port:web"}\n',
      baseGeneration: await api.services.policy.head(alice),
    });
    const busy = await call('Alice', 'DELETE', '/tenant/acme/port/web');
    assert.equal(busy.status, 409);
    assert.equal(busy.body.code, 'ResourceInUse');
    assert.deepEqual(busy.body.content?.services, ['shop']);
    assert.equal((await call('Alice', 'PUT', '/tenant/acme/port/web', { port: 30090 })).status, 200);
    assert.equal((await call('Bob', 'POST', '/tenant/beta/port/www', { port: 30080 })).status, 201, '30080 is free again');
    assert.equal((await call('Alice', 'PUT', '/tenant/acme/port/web', { port: 30080 })).body.code, 'ResourceTaken');
    assert.equal((await call('Alice', 'DELETE', '/tenant/acme/domain/shop')).status, 200);
    assert.equal((await call('Alice', 'GET', '/tenant/acme/domain/shop')).status, 404);
    assert.equal((await call('Alice', 'GET', '/tenant/acme/widget')).status, 400, 'unknown kinds are refused by name');
  });

  test('certificates and CAs are what they claim to be: parsed, key matched, CA checked, the field named in the 400', async () => {
    const garbage = '-----BEGIN CERTIFICATE-----\nabc\n-----END CERTIFICATE-----';
    const refused = async (kind: string, name: string, body: unknown, field: RegExp) => {
      const r = await call('Alice', 'POST', `/tenant/acme/${kind}/${name}`, body);
      assert.equal(r.status, 400, `${kind} ${name}: ${JSON.stringify(r.body)}`);
      assert.match(String(r.body.content?.message), field);
      assert.equal((await call('Alice', 'GET', `/tenant/acme/${kind}/${name}`)).status, 404, 'nothing was registered');
    };
    await refused('certificate', 'bad-cert', { domain: 'shop.example.com', cert: garbage, key: TEST_SHOP_KEY }, /^certificate cert: is not a certificate that can be read/);
    await refused('certificate', 'bad-key', { domain: 'shop.example.com', cert: TEST_SHOP_CERT, key: '-----BEGIN PRIVATE KEY-----\nabc\n-----END PRIVATE KEY-----' }, /^certificate key: is not a private key that can be read/);
    await refused('certificate', 'other-key', { domain: 'shop.example.com', cert: TEST_SHOP_CERT, key: TEST_OTHER_KEY }, /^certificate key: is not the private key of the certificate \(CN=shop\.example\.com\)/);
    await refused('certificate', 'other-domain', { domain: 'blog.example.com', cert: TEST_SHOP_CERT, key: TEST_SHOP_KEY }, /^certificate domain: blog\.example\.com is not a name the certificate is for \(DNS:shop\.example\.com\)/);
    await refused('certificate', 'key-as-cert', { domain: 'shop.example.com', cert: TEST_SHOP_KEY, key: TEST_SHOP_KEY }, /^certificate cert: is a PRIVATE KEY, not a CERTIFICATE/);
    await refused('certificate', 'trailing', { domain: 'shop.example.com', cert: `${TEST_SHOP_CERT}\nnot pem`, key: TEST_SHOP_KEY }, /^certificate cert: must hold only PEM certificate blocks/);
    await refused('ca', 'bad-ca', { ca: garbage }, /^ca ca: is not a certificate that can be read/);
    await refused('ca', 'leaf-ca', { ca: TEST_SHOP_CERT }, /^ca ca: is not a CA: its basicConstraints do not say CA:TRUE \(CN=shop\.example\.com\)/);

    assert.equal((await call('Alice', 'POST', '/tenant/acme/certificate/shop-tls', { domain: 'shop.example.com', cert: `${TEST_SHOP_CERT}${TEST_CA_CERT}`, key: TEST_SHOP_KEY })).status, 201, 'a chain with its key');
    assert.equal((await call('Alice', 'POST', '/tenant/acme/ca/test-ca', { ca: TEST_CA_CERT })).status, 201);
    // An update is checked as a registration is, and a refused one keeps what was there.
    const update = await call('Alice', 'PUT', '/tenant/acme/certificate/shop-tls', { domain: 'shop.example.com', cert: TEST_SHOP_CERT, key: TEST_OTHER_KEY });
    assert.equal(update.status, 400);
    assert.match(String(update.body.content?.message), /^certificate key: /);
    assert.equal((await call('Alice', 'GET', '/tenant/acme/certificate/shop-tls?reveal=true')).body.data?.secret, TEST_SHOP_KEY);
  });

  test("bodies as the Axebow document gives them: {data, meta?, selector?} in, #Resource out, secret data sealed", async () => {
    // §5.10.5's #ResourceSpec for a port: {data: <uint16>}.
    const port = await call('Alice', 'POST', '/tenant/acme/port/doc', { data: 30100, meta: { team: 'web' }, selector: ['$.environment.meta.tier', 'prod', '::eq'] });
    assert.equal(port.status, 201, JSON.stringify(port.body));
    assert.deepEqual(
      { id: port.body.data?.id, spec: port.body.data?.spec, meta: port.body.data?.meta, selector: port.body.data?.selector, status: port.body.data?.status },
      {
        id: { name: 'doc', kind: 'port', parent: { name: 'acme', kind: 'tenant' } },
        spec: { data: 30100 },
        meta: { team: 'web' },
        selector: ['$.environment.meta.tier', 'prod', '::eq'],
        status: { clusters: {}, requested: {}, environment: {} },
      },
    );
    // Still unique across tenants, whichever shape registered it.
    assert.equal((await call('Bob', 'POST', '/tenant/beta/port/doc', { port: 30100 })).body.code, 'ResourceTaken');
    // Flat bodies keep working, and answer the same shape.
    assert.deepEqual((await call('Alice', 'GET', '/tenant/acme/port/web')).body.data?.spec, { data: 30090 });

    // A secret's data is a string; answers show it sealed unless revealed by an owner or admin.
    assert.equal((await call('Alice', 'POST', '/tenant/acme/secret/doc', { data: 'swordfish' })).status, 201);
    const shown = await call('Carol', 'GET', '/tenant/acme/secret/doc');
    assert.deepEqual(shown.body.data?.spec, { data: SEALED_DATA });
    assert.doesNotMatch(JSON.stringify(shown.body), /swordfish/);
    assert.deepEqual((await call('Alice', 'GET', '/tenant/acme/secret/doc?reveal=true')).body.data?.spec, { data: 'swordfish' });
    // What an answer showed is not a secret: sending it back is refused, and the secret is kept.
    const copied = await call('Alice', 'PUT', '/tenant/acme/secret/doc', { data: SEALED_DATA });
    assert.equal(copied.status, 400);
    assert.match(String(copied.body.content?.message), /^secret data: shows/);
    assert.equal((await call('Alice', 'GET', '/tenant/acme/secret/doc?reveal=true')).body.data?.secret, 'swordfish');

    // A certificate's data is {cert, key, domain}; its key is sealed, and problems name the field under data.
    const cert = await call('Alice', 'POST', '/tenant/acme/certificate/doc-tls', { data: { domain: 'shop.example.com', cert: TEST_SHOP_CERT, key: TEST_SHOP_KEY } });
    assert.equal(cert.status, 201, JSON.stringify(cert.body));
    assert.deepEqual(cert.body.data?.spec, { data: { domain: 'shop.example.com', cert: TEST_SHOP_CERT, key: SEALED_DATA } });
    const wrongKey = await call('Alice', 'PUT', '/tenant/acme/certificate/doc-tls', { data: { domain: 'shop.example.com', cert: TEST_SHOP_CERT, key: TEST_OTHER_KEY } });
    assert.match(String(wrongKey.body.content?.message), /^certificate data\.key: is not the private key/);
    // A body that fits no kind is refused by the kind in the path, naming the field.
    const badPort = await call('Alice', 'PUT', '/tenant/acme/port/doc', { data: 70000 });
    assert.equal(badPort.status, 400);
    assert.match(String(badPort.body.content?.message), /^port data: /);
    assert.match(String((await call('Alice', 'POST', '/tenant/acme/port/doc2', { data: 1, extra: true })).body.content?.message), /^port body: Unrecognized key: "extra"/);
    const ca = await call('Alice', 'PUT', '/tenant/acme/port/doc', { data: 30101, selector: ['::and'] });
    assert.equal(ca.status, 400, 'a selector that could never run is refused when written');
    assert.match(String(ca.body.content?.message), /^port selector: /);
    assert.equal((await call('Alice', 'POST', '/tenant/acme/domain/doc', { data: 'blog.example.com' })).body.data?.spec?.data, 'blog.example.com');
    const vol = await call('Alice', 'POST', '/tenant/acme/volume/doc', { data: { items: 3, size: '5G', type: 'replicated', provider: 'csi.example' } });
    assert.deepEqual(vol.body.data?.spec, { data: { items: 3, size: '5G', type: 'replicated', provider: 'csi.example' } });

    // Where a service uses it: status counts per account/environment and names the cluster (the port's selector admits tier prod only).
    assert.equal((await call('Alice', 'POST', '/tenant/acme/account/main', {})).status, 201);
    assert.equal((await call('Alice', 'POST', '/tenant/acme/account/main/environment/prod', { cluster: 'k8s-example', meta: { tier: 'prod' } })).status, 201);
    const svc = await call('Alice', 'POST', '/tenant/acme/service/shop2', { service: 'social/twitter_stats', environment: 'main/prod', labels: { tsvisimage: 'demo12', ingress: 'port:doc' } });
    assert.ok([200, 202].includes(svc.status), JSON.stringify(svc.body));
    assert.deepEqual((await call('Alice', 'GET', '/tenant/acme/port/doc')).body.data?.status, { clusters: { 'system/k8s-example': true }, requested: { main: 1 }, environment: { 'main/prod': 1 } });
  });
});
