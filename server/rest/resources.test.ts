/** Registered resources through the REST API: uniqueness, sealed secrets, rights to reveal, in-use protection. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { restHarness } from '../testing/rest';
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
    assert.deepEqual([sec.body.data?.hasSecret, sec.body.data?.secret, sec.body.data?.spec], [true, undefined, {}]);
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
});
