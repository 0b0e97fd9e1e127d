/**
 * Identity is the account: an OIDC user is named in policy by a verified
 * address or by subject@issuer, never by the name they give themselves, and
 * no such name can be a local user's.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseUsers } from '../engine/model/users';
import { oidcAccount } from './identity';

const ISSUER = 'https://sso.example.com/realms/main';

describe('OIDC accounts', () => {
  test('a display name equal to a local user name is only shown, never used as the policy name', () => {
    const a = oidcAccount({ sub: 'u-123', name: 'Sam' }, ISSUER);
    assert.equal(a.displayName, 'Sam');
    assert.equal(a.name, 'u-123@sso.example.com');
    assert.equal(a.id, `oidc:${ISSUER}#u-123`);
  });

  test('an e-mail address names the account only when the provider verified it', () => {
    assert.equal(oidcAccount({ sub: 'x', email: 'Ann@Example.com', email_verified: true }, ISSUER).name, 'ann@example.com');
    const unverified = oidcAccount({ sub: 'x', email: 'sam@example.com', email_verified: false }, ISSUER);
    assert.equal(unverified.name, 'x@sso.example.com');
    assert.equal(unverified.email, null);
    assert.equal(oidcAccount({ sub: 'x', email: 'sam@example.com' }, ISSUER).email, null, 'no email_verified claim means not verified');
  });

  test('the same subject at another issuer is another account', () => {
    assert.notEqual(oidcAccount({ sub: 'u-1' }, ISSUER).id, oidcAccount({ sub: 'u-1' }, 'https://other.example.org').id);
    assert.notEqual(oidcAccount({ sub: 'u-1' }, ISSUER).name, oidcAccount({ sub: 'u-1' }, 'https://other.example.org').name);
  });

  test('a users file cannot define a local user with an account-like name', () => {
    const r = parseUsers('- name: sam@example.com\n  labels: {global_ops: true}\n', 'users.yaml');
    assert.ok(r.diagnostics.some((d) => d.severity === 'error' && /may not contain "@"/.test(d.message)), JSON.stringify(r.diagnostics));
  });
});
