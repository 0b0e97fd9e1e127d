import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { compileTemplate } from './index';
import { templateMayReadSecrets, templateReadsDiscovery } from './reads';

const reads = (src: string, discoveryTainted = false) => {
  const c = compileTemplate(src);
  assert.ok(c.ok, src);
  return templateMayReadSecrets(c.value, { discoveryTainted });
};

describe('what a template could read', () => {
  for (const src of [
    '{{ .User }}',
    '{{ print .User }}',
    '{{ printf "%v" .User }}',
    '{{ . }}',
    '{{ $ }}',
    '{{ print $ }}',
    '{{ .User.Secrets.pw }}',
    '{{ index .User "Secrets" }}',
    '{{ with .User }}{{ .Name }}{{ end }}',
    '{{ range $k, $v := .User.Secrets }}{{ $k }}{{ end }}',
    '{{ $u := .User }}{{ $u.Name }}',
    '{{ if .User.Secrets.flag }}yes{{ end }}',
    '{{ len .User.Secrets }}',
    '{{ $.User.Secrets.pw }}',
    '{{ (.User).Name }}',
  ]) {
    test(`could read secrets: ${src}`, () => assert.equal(reads(src), true));
  }
  for (const src of [
    'plain text mentioning Secrets and $',
    '{{ .User.Name }}',
    '{{ .User.Labels.team }}',
    '{{ .Labels.x }}-{{ .Target.Namespace }}',
    '{{/* .User.Secrets */}}{{ .Labels.x }}',
    '{{ range .Labels }}{{ . }}{{ end }}',
    '{{ with .Labels }}{{ .Secrets }}{{ end }}',
    '{{ .Discovery.db.url }}',
  ]) {
    test(`reads no secret: ${src}`, () => assert.equal(reads(src), false));
  }
  test('discovery counts when it may carry secrets', () => {
    assert.equal(reads('{{ .Discovery.db.password }}', true), true);
    assert.equal(reads('{{ $.Discovery.db.password }}', true), true);
    const c = compileTemplate('{{ .Discovery.db.url }}');
    assert.ok(c.ok && templateReadsDiscovery(c.value));
    const d = compileTemplate('{{ .User.Secrets.x }}');
    assert.ok(d.ok && !templateReadsDiscovery(d.value));
  });
});
