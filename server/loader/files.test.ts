/**
 * `@include` reads only files in the including file's folder (and below)
 * unless the user passes --allow-outside: a policy folder from someone else
 * must not pull ~/.kube/config or /etc/passwd into what is sent to a server.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { loadPolicyFiles } from './files';
import { validateCommand } from '../cli/validate';

const bundle = (include: string) => `kind: bundle
metadata: {namespace: main, name: b}
components:
  - name: web
    code:
      type: raw
      params:
        manifest: "@include ${include}"
`;

describe('@include stays inside the policy folder', () => {
  let root: string;
  let policy: string;
  before(() => {
    root = mkdtempSync(join(tmpdir(), 'keelson-include-'));
    policy = join(root, 'policy');
    mkdirSync(join(policy, 'manifests'), { recursive: true });
    writeFileSync(join(root, 'secret.txt'), 'TOP-SECRET-OUTSIDE\n');
    writeFileSync(join(policy, 'manifests', 'cm.yaml'), 'kind: ConfigMap\n');
    symlinkSync(join(root, 'secret.txt'), join(policy, 'manifests', 'link.yaml'));
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  const load = (include: string, allowOutside = false) => {
    writeFileSync(join(policy, 'b.yaml'), bundle(include));
    return loadPolicyFiles([join(policy, 'b.yaml')], { allowOutside });
  };

  test('files below the including file are included', () => {
    const r = load('manifests/cm.yaml');
    assert.deepEqual(r.diagnostics.filter((d) => d.severity === 'error'), []);
    assert.match(JSON.stringify(r.objects[0]!.spec), /kind: ConfigMap/);
  });

  for (const [what, include] of [
    ['a .. escape', '../secret.txt'],
    ['an absolute path', '/etc/hostname'],
    ['a symbolic link pointing outside', 'manifests/link.yaml'],
  ] as const) {
    test(`${what} is refused with the file, line and column, and nothing of it is read`, () => {
      const r = load(include);
      const errors = r.diagnostics.filter((d) => d.severity === 'error');
      assert.equal(errors.length, 1, JSON.stringify(r.diagnostics));
      assert.match(errors[0]!.message, /not included unless --allow-outside is given/);
      assert.equal(errors[0]!.file, join(policy, 'b.yaml'));
      assert.equal(errors[0]!.line, 8);
      assert.ok(!JSON.stringify(r.objects).includes('TOP-SECRET-OUTSIDE'));
    });
  }

  test('--allow-outside lets the user include them on purpose', () => {
    const r = load('../secret.txt', true);
    assert.deepEqual(r.diagnostics.filter((d) => d.severity === 'error'), []);
    assert.match(JSON.stringify(r.objects[0]!.spec), /TOP-SECRET-OUTSIDE/);
  });

  test('keelson validate reports the refusal and exits 1; with --allow-outside it passes', async () => {
    writeFileSync(join(policy, 'b.yaml'), bundle('../secret.txt'));
    const io = () => {
      const lines: string[] = [];
      return { lines, out: (s: string) => lines.push(s), err: (s: string) => lines.push(s) };
    };
    const a = io();
    assert.equal(await validateCommand([join(policy, 'b.yaml')], a), 1);
    assert.match(a.lines.join(''), /b\.yaml:8:\d+: .*outside the folder of this file/);
    const b = io();
    assert.equal(await validateCommand([join(policy, 'b.yaml'), '--allow-outside'], b), 0);
  });
});
