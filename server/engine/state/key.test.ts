import assert from 'node:assert/strict';
import { test } from 'node:test';
import { instanceKey } from './key';

const parts = { clusterNamespace: 'system', cluster: 'k8s-example', k8sNamespace: 'east', namespace: 'social', service: 'twitter_stats', context: 'realtime', allocationKeys: ['Alice', 'dev'], component: 'tweeviz' };

test('instance keys: make and parse are inverse; the parts a screen or a check needs come from one place', () => {
  const key = instanceKey.make(parts);
  assert.equal(key, 'system#k8s-example#east#social#twitter_stats#realtime#Alice#dev#tweeviz');
  assert.deepEqual(instanceKey.parse(key), parts);
  assert.equal(instanceKey.parse('not#a#key'), undefined);
  assert.deepEqual(instanceKey.splitComponent(key), { prefix: 'system#k8s-example#east#social#twitter_stats#realtime#Alice#dev#', component: 'tweeviz' });
  assert.equal(instanceKey.prefix(parts) + 'root', instanceKey.make({ ...parts, component: 'root' }));
  assert.equal(instanceKey.namespaceOf(key), 'social');
  assert.equal(instanceKey.rootOf(key), 'system#k8s-example#east#social#twitter_stats#realtime#Alice#dev#root');
  assert.equal(instanceKey.displayName(key), 'social · twitter_stats · realtime · Alice · dev · tweeviz');
  // A bundle instance is named by its level alone.
  assert.equal(instanceKey.displayName(instanceKey.rootOf(key)), 'social · twitter_stats · realtime · Alice · dev');
  assert.equal(instanceKey.levelName(key), 'social#twitter_stats#realtime#Alice#dev');
  // No allocation keys.
  const bare = instanceKey.make({ ...parts, allocationKeys: [], component: 'root' });
  assert.deepEqual(instanceKey.parse(bare)?.allocationKeys, []);
});

test('instance keys of other sources: marked with their source, never colliding with an Aptomi key', () => {
  const key = instanceKey.forSource({ source: 'landscaper', clusterNamespace: 'system', cluster: 'k8s', k8sNamespace: 'east', namespace: 'social', path: ['root', 'db'], component: 'chart' });
  assert.equal(key, 'system#k8s#east#social#@landscaper#root#db#chart');
  assert.equal(instanceKey.sourceOf(key), 'landscaper');
  assert.equal(instanceKey.sourceOf(instanceKey.make(parts)), 'aptomi');
  // Not an Aptomi key, so its parts are not mistaken for service and context.
  assert.equal(instanceKey.parse(key), undefined);
  assert.equal(instanceKey.namespaceOf(key), 'social');
  assert.equal(instanceKey.rootOf(key), 'system#k8s#east#social#@landscaper#root#db#root');
  assert.equal(instanceKey.displayName(key), 'social · landscaper · root · db · chart');
  assert.throws(() => instanceKey.forSource({ source: 'dm', clusterNamespace: 's', cluster: 'c', k8sNamespace: 'n', namespace: 'ns', path: ['a#b'], component: 'x' }), /contains "#"/);
});
