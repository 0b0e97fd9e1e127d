/**
 * Capact in the console: the Hub saved (as Capact writes it, through the
 * CLI), then the Global policy edited in the editor with "Try it" beside
 * it, answering as the text changes.
 *
 * Named to run last: it adds the Capact Hub to the console the other specs
 * share, as a new generation.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { editorText, setEditorText, signIn } from './fixtures';

function keelson(args: string[]) {
  return spawnSync(process.execPath, ['--import', 'tsx', 'server/cli/main.ts', ...args], {
    encoding: 'utf8',
    env: { ...process.env, KEELSON_USER: 'sam', KEELSON_PASSWORD: 'sam', KEELSON_SERVER: test.info().project.use.baseURL },
  });
}

const POLICY = (oneOf: string) => `kind: policy
metadata:
  namespace: system
  name: global
interface:
  rules:
    - interface:
        path: cap.interface.database.postgresql.install
        revision: 0.1.0
      oneOf:
${oneOf}`;

test('editing the Global policy: "Try it" answers as the text changes, and nothing is saved by trying', async ({ page }) => {
  const r = keelson(['apply', 'corpus/capact/pkg/sdk/renderer/argo/testdata/hub']);
  expect(r.status, r.stderr).toBe(0);

  await signIn(page, 'sam');
  await page.goto('/objects/new?kind=policy');
  const panel = page.getByTestId('capact-try-it');
  await panel.getByTestId('try-interface').selectOption('cap.interface.database.postgresql.install');

  // Bitnami by path: chosen, the others listed with their reasons.
  await setEditorText(page, POLICY(`        - implementationConstraints:\n            path: cap.implementation.bitnami.postgresql.install\n`));
  await expect(panel.getByTestId('try-summary')).toHaveText(/resolves to cap\.implementation\.bitnami\.postgresql\.install:0\.1\.0/);
  await expect(panel.getByTestId('try-candidates')).toContainText('cap.implementation.aws.rds.postgresql.install:0.1.0');

  // CloudSQL with the GCP service account injected: the answer follows the text.
  await setEditorText(
    page,
    POLICY(`        - implementationConstraints:
            requires: [{path: cap.type.gcp.auth.service-account, revision: 0.1.0}]
          inject:
            requiredTypeInstances: [{id: c268d3f5-8834-434b-bea2-b677793611c5, description: GCP SA}]
`),
  );
  await expect(panel.getByTestId('try-summary')).toHaveText(/resolves to cap\.implementation\.gcp\.cloudsql\.postgresql\.install:0\.1\.0/);
  await expect(panel.getByTestId('try-injections')).toContainText('c268d3f5-8834-434b-bea2-b677793611c5');

  // oneOf: [] denies, and a broken draft says what is wrong instead of answering.
  await setEditorText(page, POLICY('        []\n').replace('      oneOf:\n        []', '      oneOf: []'));
  await expect(panel.getByTestId('try-summary')).toHaveText(/no Implementation of cap\.interface\.database\.postgresql\.install:0\.1\.0 is allowed/);
  await setEditorText(page, POLICY('        - foo\n'));
  await expect(panel.getByTestId('try-problems')).toBeVisible();

  // Trying saved nothing: the Global policy is still the demo's.
  await page.goto('/objects/policy/system/global');
  const saved = await editorText(page);
  expect(saved).toContain('cap.attribute.cloud.provider.gcp');
  expect(saved).not.toContain('c268d3f5-8834-434b-bea2-b677793611c5');
});

test('a bundle whose component names an Interface deploys the Implementation the Global policy chooses', async ({ page }) => {
  const dir = mkdtempSync(join(tmpdir(), 'keelson-capact-'));
  const file = join(dir, 'app.yaml');
  writeFileSync(
    file,
    `ocfVersion: 0.0.1
revision: 0.1.0
kind: Implementation
metadata: {prefix: cap.implementation.keelson.postgresql, name: install}
spec:
  implements: [{path: cap.interface.database.postgresql.install, revision: 0.1.0}]
  keelson:
    code: {type: helm, params: {chartRepo: https://charts.bitnami.com/bitnami, chartName: postgresql}}
---
${POLICY('        - implementationConstraints: {path: cap.implementation.keelson}\n')}---
- kind: bundle
  metadata: {namespace: capdemo, name: app}
  components: [{name: db, interface: cap.interface.database.postgresql.install}]
- {kind: service, metadata: {namespace: capdemo, name: app}, contexts: [{name: all, allocation: {bundle: app}}]}
- {kind: claim, metadata: {namespace: capdemo, name: shop}, user: Sam, service: app, labels: {target: k8s-example.west}}
`,
  );
  const r = keelson(['apply', file, '--format', 'json']);
  rmSync(dir, { recursive: true, force: true });
  expect(r.status, r.stderr).toBe(0);
  const rev = JSON.parse(r.stdout).revision as { id: number };

  await signIn(page, 'sam');
  await page.goto(`/revisions/${rev.id}`);
  // The section of the offering deploys the chart of the chosen Implementation.
  await expect(page.getByTestId('deploys-capdemo')).toContainText('https://charts.bitnami.com/bitnami');
  // And the claim's trace says which Implementation, and why.
  await page.goto('/claims/capdemo/shop');
  await expect(page.getByText(/interface cap\.interface\.database\.postgresql\.install: Implementation cap\.implementation\.keelson\.postgresql\.install:0\.1\.0/)).toBeVisible();
});
