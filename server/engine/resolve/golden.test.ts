/**
 * Golden resolution cases as data (server/engine/testdata/resolve/*.yaml):
 * each file holds `note`, `users`, `policy` (objects as written) and `want`,
 * a summary of the resolution. Run with KEELSON_UPDATE_GOLDEN=1 to rewrite
 * `want` from the current engine — then review the diff before committing.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { parseDocument, stringify } from 'yaml';
import { formatDiagnostic, hasErrors } from '../diagnostics';
import type { PolicyUser } from '../model/users';
import { loadObjects } from '../model/validate';
import { resolvePolicy, type DesiredState } from './index';

const DIR = join(import.meta.dirname ?? new URL('.', import.meta.url).pathname, '../testdata/resolve');
const UPDATE = process.env.KEELSON_UPDATE_GOLDEN === '1';

interface GoldenCase {
  note: string;
  users: { name: string; labels?: Record<string, string | number | boolean>; domainadmin?: boolean }[];
  domainAdmins?: string[];
  policy: unknown[];
  want?: unknown;
}

/** What a case pins down: outcomes per claim, and per instance its code, discovery, target and claims. */
function summary(state: DesiredState) {
  return {
    claims: Object.fromEntries(
      state.claims.map((c) => [
        `${c.namespace}/${c.name}`,
        { status: c.status, ...(c.instance ? { instance: c.instance } : {}), ...(c.errors.length ? { errors: c.errors } : {}) },
      ]),
    ),
    instances: Object.fromEntries(
      state.instances.map((i) => [
        i.key,
        {
          claims: i.claims,
          ...(i.code ? { code: i.code } : {}),
          ...(Object.keys(i.discovery).length ? { discovery: i.discovery } : {}),
          ...(i.dependsOn.length ? { dependsOn: i.dependsOn } : {}),
          ...(i.error ? { error: i.error } : {}),
        },
      ]),
    ),
  };
}

const files = readdirSync(DIR).filter((f) => f.endsWith('.yaml')).sort();

describe('golden resolution cases', () => {
  test('there are cases', () => assert.ok(files.length >= 8));
  for (const f of files) {
    test(f.replace(/\.yaml$/, ''), () => {
      const path = join(DIR, f);
      const text = readFileSync(path, 'utf8');
      const c = parseDocument(text).toJS() as GoldenCase;
      const loaded = loadObjects(stringify(c.policy), f);
      assert.ok(!hasErrors(loaded.diagnostics), loaded.diagnostics.map(formatDiagnostic).join('\n'));
      const users: PolicyUser[] = c.users.map((u) => ({
        name: u.name,
        labels: Object.fromEntries(Object.entries(u.labels ?? {}).map(([k, v]) => [k, String(v)])),
        secrets: {},
        domainAdmin: u.domainadmin,
      }));
      const state = resolvePolicy({ objects: loaded.objects, users, domainAdmins: c.domainAdmins });
      const got = summary(state);
      // Memoised and plain walks must agree on every case too.
      assert.deepEqual(summary(resolvePolicy({ objects: loaded.objects, users, domainAdmins: c.domainAdmins, memo: false })), got);
      if (UPDATE) {
        const doc = parseDocument(text);
        // Written out in full: YAML anchors would make the expectations hard to read.
        doc.set('want', doc.createNode(got, { aliasDuplicateObjects: false }));
        writeFileSync(path, doc.toString({ lineWidth: 0 }));
        return;
      }
      assert.ok(c.want, `${f} has no want: run with KEELSON_UPDATE_GOLDEN=1 and review`);
      assert.deepEqual(got, c.want);
    });
  }
});
