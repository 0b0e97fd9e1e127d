/**
 * `npm ci` refuses a lock file that lacks an entry for any optional
 * dependency, even one for another platform. The registry mirror here has
 * no darwin/win32 builds of Next's SWC, so `npm install` silently leaves
 * them out; this test catches that before CI does.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

test('package-lock.json has an entry for every optional dependency (npm ci needs them)', () => {
  const lock = JSON.parse(readFileSync('package-lock.json', 'utf8')) as { packages: Record<string, { optionalDependencies?: Record<string, string> }> };
  const missing: string[] = [];
  for (const [path, pkg] of Object.entries(lock.packages)) {
    for (const dep of Object.keys(pkg.optionalDependencies ?? {})) {
      // Resolution walks up node_modules folders, as Node does.
      const parts = path ? path.split('/node_modules/') : [''];
      let found = false;
      for (let i = parts.length; i >= 0 && !found; i--) {
        const base = parts.slice(0, i).join('/node_modules/');
        found = `${base ? `${base}/` : ''}node_modules/${dep}` in lock.packages;
      }
      if (!found) missing.push(`${path || '(root)'} → ${dep}`);
    }
  }
  assert.deepEqual(missing, [], 'add lock entries (version, os, cpu, optional: true) for these');
});
