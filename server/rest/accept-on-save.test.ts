/**
 * Issue 35, item 9: `accept=true` by a domain admin leaves the sections
 * that need a deliberate decision (over marks, or reaching past their
 * namespace) pending — and the answer says which and why, rather than
 * letting the caller take the revision for accepted.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { restHarness } from '../testing/rest';

describe('REST API: what accept=true left pending', () => {
  const api = restHarness({ freeNamespaces: ['acme*'] });

  test("a domain admin's create with accept=true names the sections it left for a deliberate decision, and why", async () => {
    assert.equal((await api.call('Sam', 'POST', '/tenant/acme', { namespaces: ['acme'] })).status, 201);
    assert.equal((await api.call('Sam', 'POST', '/tenant/acme/account/main', {})).status, 201);
    assert.equal((await api.call('Sam', 'POST', '/tenant/acme/account/main/environment/dev', { cluster: 'k8s-example' })).status, 201);
    // The guestbook deploys into Kubernetes namespace default, which policy namespace social may not use.
    const created = await api.call('Sam', 'POST', '/tenant/acme/service/gb?accept=true', { service: 'social/guestbook', environment: 'main/dev' });
    assert.equal(created.status, 202, JSON.stringify(created.body));
    assert.equal(created.body.data.revision.status, 'pending');
    assert.deepEqual(created.body.data.notAccepted, [
      {
        namespace: 'social',
        reason: 'it reaches past policy namespace social (Kubernetes namespace default on cluster system/k8s-example is not allowed for policy namespace social), so a domain admin accepts it explicitly (never on save).',
      },
    ]);
    // Without accept=true nothing was asked, so nothing is reported.
    const plain = await api.call('Sam', 'POST', '/tenant/acme/service/gb2', { service: 'social/guestbook', environment: 'main/dev' });
    assert.equal(plain.status, 202, JSON.stringify(plain.body));
    assert.equal(plain.body.data.notAccepted, undefined);
  });
});
