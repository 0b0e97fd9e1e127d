/** Each kind of request has a route of its own: a claim and a DM deployment with one namespace and name both stay reachable. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { claimHref, isRequestKind } from './status';

test('a claim, an action, an installation and a deployment named social/prod have four pages', () => {
  const hrefs = (['claim', 'action', 'installation', 'deployment'] as const).map((kind) => claimHref({ kind, namespace: 'social', name: 'prod' }, 3));
  assert.deepEqual(hrefs, ['/claims/social/prod?generation=3', '/actions/social/prod?generation=3', '/installations/social/prod?generation=3', '/deployments/social/prod?generation=3']);
  // An outcome without a kind is an Aptomi claim.
  assert.equal(claimHref({ namespace: 'a b', name: 'c' }), '/claims/a%20b/c');
  assert.deepEqual(['claim', 'deployment', 'bundle', 'toString'].map(isRequestKind), [true, true, false, false]);
});
