import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { validateFluxObject } from './flux-schema';
import { helmObjects, parseRenderedFile, renderStep } from './render';
import { corpusSteps, helmStep } from '../../testing/gitops-steps';

/** A valid pair to break one field at a time. */
function objects() {
  const step = helmStep();
  const objs = helmObjects(step, step.code!.params);
  assert.ok(!('error' in objs));
  return structuredClone(objs);
}

function errorsOf(obj: unknown): string {
  const errors = validateFluxObject(obj);
  assert.ok(errors.length > 0, 'expected validation errors');
  return errors.join('\n');
}

describe('Flux schema checks', () => {
  test('every HelmRelease/HelmRepository rendered from the corpus is valid', () => {
    const helm = corpusSteps().filter((s) => s.code?.type === 'helm');
    assert.ok(helm.length >= 5, `only ${helm.length} helm instances`);
    let checked = 0;
    for (const step of helm) {
      const out = renderStep(step);
      assert.equal(out.op, 'write', out.op === 'fail' ? out.error : '');
      if (out.op !== 'write') continue;
      for (const obj of parseRenderedFile(out.content)) {
        assert.deepEqual(validateFluxObject(obj), [], `${step.key}: ${JSON.stringify(obj)}`);
        checked++;
      }
    }
    assert.equal(checked, helm.length * 2);
  });

  test('an OCI repository is valid with type oci, and an OCI URL without it is not', () => {
    const { repository } = objects();
    repository.spec = { url: 'oci://ghcr.io/org/charts', interval: '5m0s', type: 'oci' };
    assert.deepEqual(validateFluxObject(repository), []);
    delete repository.spec.type;
    assert.match(errorsOf(repository), /spec\.type: an oci:\/\/ URL needs type: oci/);
  });

  test('a release without a chart fails', () => {
    const { release } = objects();
    delete release.spec.chart;
    assert.match(errorsOf(release), /either chart or chartRef must be set/);
    const { release: noChartName } = objects();
    delete (noChartName.spec.chart!.spec as { chart?: string }).chart;
    assert.match(errorsOf(noChartName), /spec\.chart\.spec\.chart: is required/);
    const { release: emptyChart } = objects();
    emptyChart.spec.chart!.spec.chart = '';
    assert.match(errorsOf(emptyChart), /spec\.chart\.spec\.chart: is required/);
  });

  test('bad intervals fail', () => {
    for (const bad of ['10 minutes', '10', 'm', '1d', '']) {
      const { release, repository } = objects();
      release.spec.interval = bad;
      assert.match(errorsOf(release), /spec\.interval: must be a Go duration/, bad);
      repository.spec.interval = bad;
      assert.match(errorsOf(repository), /spec\.interval: must be a Go duration/, bad);
    }
    for (const good of ['10m', '1h30m', '5m0s', '1.5h', '500ms']) {
      const { release } = objects();
      release.spec.interval = good;
      assert.deepEqual(validateFluxObject(release), [], good);
    }
  });

  test('bad names fail', () => {
    const cases: [(o: ReturnType<typeof objects>) => unknown, RegExp][] = [
      [(o) => ((o.release.metadata.name = 'My_Release'), o.release), /metadata\.name: must be a DNS-1123 subdomain/],
      [(o) => ((o.release.metadata.name = 'a'.repeat(254)), o.release), /metadata\.name: must be at most 253/],
      [(o) => ((o.release.metadata.name = ''), o.release), /metadata\.name: must not be empty/],
      [(o) => ((o.repository.metadata.namespace = 'a.b'), o.repository), /metadata\.namespace: must be a DNS-1123 label/],
      [(o) => ((o.release.spec.releaseName = 'r'.repeat(54)), o.release), /spec\.releaseName/],
      [(o) => ((o.release.metadata.labels = { x: 'not a label value!' }), o.release), /metadata\.labels\.x: must be a valid label value/],
    ];
    for (const [breakIt, want] of cases) assert.match(errorsOf(breakIt(objects())), want);
  });

  test('wrong kinds, sources, URLs, values and unknown fields fail', () => {
    const o1 = objects();
    (o1.release.spec.chart!.spec.sourceRef as { kind: string }).kind = 'OCIRepository';
    assert.match(errorsOf(o1.release), /spec\.chart\.spec\.sourceRef\.kind/);

    const o2 = objects();
    o2.repository.spec.url = 'ftp://charts.example.com';
    assert.match(errorsOf(o2.repository), /spec\.url: must start with http:\/\/, https:\/\/ or oci:\/\//);

    const o3 = objects();
    (o3.release.spec as Record<string, unknown>).values = ['not', 'a', 'map'];
    assert.match(errorsOf(o3.release), /spec\.values/);

    const o4 = objects();
    (o4.release.spec as Record<string, unknown>).releasename = 'typo';
    assert.match(errorsOf(o4.release), /releasename/);

    const o5 = objects();
    (o5.release as Record<string, unknown>).apiVersion = 'helm.toolkit.fluxcd.io/v2beta1';
    assert.match(errorsOf(o5.release), /apiVersion/);

    assert.match(errorsOf({ apiVersion: 'v1', kind: 'ConfigMap' }), /expected HelmRelease or HelmRepository/);
    assert.deepEqual(validateFluxObject(null), ['not an object']);
  });
});
