/**
 * The kind registry declares credentials once per kind. Every registered
 * kind is walked (its zod schema as the JSON Schema the registry gives the
 * editor): a field named or described like a credential — a kubeconfig, a
 * password, a token, a secret, a key, a `secretRef` — must be covered by
 * the kind's declaration, and a declaration must name fields the schema
 * can hold. A toy source shows the check failing for a kind that forgets.
 * Redaction is then the declaration's: each field, every copy of it, and
 * nothing that names the object.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { z } from 'zod';
import { computeRoles } from '../acl';
import {
  audienceOfRendered,
  credentialMarker,
  heldCredentials,
  mayReadCredentials,
  redactObject,
  redactWithin,
  undeclaredCredentialFields,
  unreachableDeclarations,
  withholdSecrets,
} from './credentials';
import { KINDS, KindRegistry } from './kinds';
import { defineSource, metadataIdentity } from './sources';

const toy = (credentials?: { fields: string[][]; audience: 'domain-admins' | 'namespace-admins'; what: string }) =>
  new KindRegistry([
    defineSource({
      name: 'toy',
      title: 'Toy',
      recognises: (d) => d.apiVersion === 'toy/v1',
      identify: metadataIdentity,
      kinds: {
        widget: {
          schema: z.object({
            apiVersion: z.literal('toy/v1'),
            kind: z.string(),
            metadata: z.object({ namespace: z.string(), name: z.string() }).strict(),
            connection: z.object({ host: z.string(), password: z.string().optional() }).strict(),
            access: z.array(z.object({ note: z.string().describe('A bearer token for the widget API') })).optional(),
            allocation: z.object({ keys: z.array(z.string()) }).optional(),
          }).strict(),
          description: 'A toy widget',
          example: 'apiVersion: toy/v1\nkind: widget\nmetadata: {namespace: main, name: w}\nconnection: {host: h}\n',
          ...(credentials ? { credentials } : {}),
        },
      },
    }),
  ]);

describe('the kind registry declares credentials once per kind', () => {
  test('every registered kind with a credential-shaped field declares it, and every declaration names a field its schema holds', () => {
    assert.deepEqual(undeclaredCredentialFields(KINDS), []);
    assert.deepEqual(unreachableDeclarations(KINDS), []);
    // The platform's credentials, for domain admins only.
    for (const kind of ['cluster', 'target', 'typeinstance']) assert.equal(KINDS.spec(kind)?.credentials?.audience, 'domain-admins', kind);
  });

  test('a kind with a credential-shaped field and no declaration is named, by field; declaring it (or a field above it) clears it', () => {
    assert.deepEqual(undeclaredCredentialFields(toy()), ['widget: connection.password', 'widget: access.*.note']);
    assert.deepEqual(undeclaredCredentialFields(toy({ fields: [['connection', 'password'], ['access']], audience: 'domain-admins', what: 'widget credentials' })), []);
    // A typo in a closed object is no declaration at all.
    assert.deepEqual(unreachableDeclarations(toy({ fields: [['connection', 'pasword'], ['access', '*', 'note']], audience: 'domain-admins', what: 'widget credentials' })), ['widget: connection.pasword']);
  });
});

describe('redaction is the declaration’s', () => {
  const SECRET = 'kube-SECRET-1f2e3d';
  const target = {
    kind: 'target',
    namespace: 'social',
    name: 'k8s-example',
    text: `apiVersion: landscaper.gardener.cloud/v1alpha1\nkind: Target\nmetadata: {name: k8s-example, namespace: social}\n# was: ${SECRET}\nspec:\n  type: landscaper.gardener.cloud/kubernetes-cluster\n  config: &c {kubeconfig: "${SECRET}"}\n  copy: *c\n  url: "https://${SECRET}@example"\n`,
    spec: {
      apiVersion: 'landscaper.gardener.cloud/v1alpha1',
      kind: 'target',
      metadata: { name: 'k8s-example', namespace: 'social' },
      spec: { type: 'landscaper.gardener.cloud/kubernetes-cluster', config: { kubeconfig: SECRET }, copy: { kubeconfig: SECRET }, url: `https://${SECRET}@example` },
    },
  };

  test('a declared field, its aliases, comments and strings embedding it are replaced; what names the object is kept', () => {
    const r = redactObject(target);
    assert.ok(!JSON.stringify(r).includes(SECRET), r.text);
    const marker = credentialMarker({ audience: 'domain-admins', what: 'Target credentials' });
    assert.equal((r.spec.spec as { config: unknown }).config, marker);
    assert.match(r.text, /name: k8s-example/);
    assert.match(r.text, /type: landscaper.gardener.cloud\/kubernetes-cluster/);
  });

  test('a Capact TypeInstance written as {id, typeRef, spec: {value}} is redacted like the other shapes', () => {
    const spec = { id: 'creds', typeRef: { path: 'cap.type.db', revision: '0.1.0' }, spec: { value: { password: 'hunter2-pw' } }, kind: 'typeinstance' };
    const r = redactObject({ kind: 'typeinstance', namespace: 'system', name: 'creds', text: 'id: creds\ntypeRef: {path: cap.type.db, revision: 0.1.0}\nspec: {value: {password: hunter2-pw}}\n', spec });
    assert.ok(!JSON.stringify(r).includes('hunter2'), JSON.stringify(r));
    assert.match(r.text, /id: creds/);
  });

  test('who reads what: domain admins everything; namespace admins their own users’ secrets, not the platform’s', () => {
    const rule = (name: string, role: string, ns: string) => ({ name, spec: { metadata: { namespace: 'system', name }, kind: 'aclrule', criteria: { 'require-all': [`team == '${name}'`] }, actions: { 'add-role': { [role]: ns } } } as never });
    const rules = [rule('ops', 'domain-admin', '*'), rule('social', 'namespace-admin', 'social')];
    const domain = computeRoles({ name: 'sam', labels: { team: 'ops' } }, rules);
    const nsAdmin = computeRoles({ name: 'john', labels: { team: 'social' } }, rules);
    const nobody = computeRoles({ name: 'nina', labels: {} }, rules);
    assert.deepEqual([domain, nsAdmin, nobody].map((r) => mayReadCredentials(r, 'domain-admins', 'social')), [true, false, false]);
    assert.deepEqual([domain, nsAdmin, nobody].map((r) => mayReadCredentials(r, 'namespace-admins', 'social')), [true, true, false]);
    assert.equal(mayReadCredentials(nsAdmin, 'namespace-admins', 'platform'), false);
    // A state stored before audiences were recorded says `true`: the stricter reading.
    assert.equal(mayReadCredentials(nsAdmin, true, 'social'), false);
  });

  test('values computed from objects: embedded Target documents and copied strings are redacted for a reader who may not see them', () => {
    const hide = () => true;
    const held = [{ marker: '<gone>', secrets: [SECRET] }];
    const view = { imports: { cluster: { ...target.spec, kind: 'Target' } }, exports: { access: `token ${SECRET}` }, other: 'k8s-example' };
    const shown = redactWithin(view, held, hide) as typeof view;
    assert.ok(!JSON.stringify(shown).includes(SECRET), JSON.stringify(shown));
    assert.equal(shown.exports.access, '<gone>');
    assert.equal(shown.other, 'k8s-example');
  });

  test('a rendered value holding a credential (as written or base64) gets its audience; names and short strings are not followed', () => {
    const held = heldCredentials([target]);
    assert.equal(audienceOfRendered({ values: { kube: SECRET } }, held), 'domain-admins');
    assert.equal(audienceOfRendered({ values: { kube: btoa(SECRET) } }, held), 'domain-admins');
    assert.equal(audienceOfRendered({ values: { cluster: 'k8s-example', kind: 'Config' } }, held), undefined);
    // A kubeconfig names its cluster, user and context "kubernetes…": manifests say app.kubernetes.io everywhere; only its token is followed.
    const kubeconfig = {
      apiVersion: 'v1',
      clusters: [{ name: 'kubernetes', cluster: { server: 'https://kubernetes.default.svc' } }],
      users: [{ name: 'kubernetes-admin', user: { token: 'tok-9f8e7d6c5b' } }],
      contexts: [{ name: 'kubernetes-admin@kubernetes', context: { cluster: 'kubernetes', user: 'kubernetes-admin' } }],
      'current-context': 'kubernetes-admin@kubernetes',
    };
    const cluster = heldCredentials([{ kind: 'cluster', namespace: 'system', name: 'prod', spec: { config: { kubeconfig } } }]);
    assert.equal(audienceOfRendered({ manifest: 'metadata: {labels: {app.kubernetes.io/name: web}}, server: https://kubernetes.default.svc' }, cluster), undefined);
    assert.equal(audienceOfRendered({ manifest: 'token: tok-9f8e7d6c5b' }, cluster), 'domain-admins');
  });

  test('a credential that is also part of a longer public string (an Interface path) is withheld everywhere but inside that string', () => {
    // Capact's Hub: a TypeInstance whose value is the word "postgresql", beside an action on cap.interface.database.postgresql.install.
    const objects = [
      { kind: 'typeinstance', namespace: 'system', name: 'db', spec: { value: { engine: 'postgresql' } } },
      { kind: 'action', namespace: 'main', name: 'install', spec: { interface: { path: 'cap.interface.database.postgresql.install' } } },
    ];
    const held = heldCredentials(objects);
    const W = '<withheld>';
    // Denied first: on its own, quoted, or glued to other text that is not the public string, the value is withheld.
    assert.equal(withholdSecrets("password 'postgresql' refused", held, W), `password '${W}' refused`);
    assert.equal(withholdSecrets('db-postgresql-1', held, W), `db-${W}-1`);
    assert.equal(withholdSecrets('cap.interface.database.postgresql.upgrade', held, W), `cap.interface.database.${W}.upgrade`);
    assert.equal(audienceOfRendered({ env: { PGPASSWORD: 'postgresql' } }, held), 'domain-admins');
    // Inside the public string everyone reads in the policy, it is that string.
    assert.equal(
      withholdSecrets('interface cap.interface.database.postgresql.install: no implementation; password postgresql', held, W),
      `interface cap.interface.database.postgresql.install: no implementation; password ${W}`,
    );
    assert.equal(audienceOfRendered({ steps: ['cap.interface.database.postgresql.install'] }, held), undefined);
    // A public string equal to the value cannot be told from it: still withheld.
    const equal = heldCredentials([...objects, { kind: 'action', namespace: 'main', name: 'other', spec: { interface: { path: 'postgresql' } } }]);
    assert.equal(withholdSecrets('engine postgresql', equal, W), `engine ${W}`);
  });
});
