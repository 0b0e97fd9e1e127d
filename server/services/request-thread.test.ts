/**
 * The thread that answers requests evaluates no policy (but the ACL rules
 * every rights check reads): the layers that run there (services, the tRPC
 * and REST APIs) take nothing that runs a language or a stage from the
 * engine. Such work goes to the resolver's
 * threads (server/resolver: resolutions, drafts, admission of request
 * text, reads of stored policy), with budgets and a clock per unit. A
 * service added for a new source fails here if it calls its evaluator in
 * place, instead of remembering not to.
 *
 * The few names taken from those modules are listed with why they do not
 * evaluate anything users wrote. Types are free (`import type`).
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';

const SERVER = join(process.cwd(), 'server');
const ENGINE = join(SERVER, 'engine');
const LAYERS = ['services', 'api', 'rest'];

/** Engine modules that evaluate policy (paths under server/engine, without extension; a trailing `/` is a folder). */
const EVALUATING = ['index', 'stage', 'lang/', 'aptomi/', 'resolve/', 'landscaper/', 'capact/', 'dm/', 'axebow/', 'model/validate', 'acl'];

const LOOKUP = 'a lookup in roles already computed';

/** What the request thread may take from them anyway, and why. */
const ALLOWED: Record<string, Record<string, string>> = {
  acl: {
    // The one exception that evaluates: a thread's round trip on every request would cost every request.
    computeRoles: "ACL rules' criteria, on every rights check: written by domain admins only, each expression under govaluate's budgets",
    ROLE_ORDER: 'the roles, in order',
    roleIn: LOOKUP,
    isDomainAdmin: LOOKUP,
    canManage: LOOKUP,
    canManageSomewhere: LOOKUP,
    canActFor: LOOKUP,
  },
  'capact/input': { CAPACT_INPUT_KINDS: 'a set of kind names' },
  'lang/selector': {
    compileSelector: "compiles a resource's selector (at most 1,024 items, zod-bounded) to say at registration that it cannot run; runs none",
  },
  'lang/selector/types': { selectorDiagnostic: "words a selector's refusal as a Diagnostic (one failure model): a copy of fields, nothing evaluated" },
  'lang/data': { isRecord: 'a type guard on a parsed request body' },
  'dm/types': { dmDiagnostic: "words a DM refusal the resolver thread returned as a Diagnostic (one failure model): a copy of fields, nothing evaluated" },
  'landscaper/scope-graph': { withDelivery: "maps a computed scope graph's phases onto the revision's and apply's state: a walk over the graph, nothing evaluated" },
  'capact/try': { GLOBAL_POLICY: "the Global policy's name" },
  'axebow/stage': {
    checkRules: 'compiles the selector programs a tenant admin sends (at most 200 of 1,024 items); runs none',
    checkResourceSelector: "compiles a resource's selector (at most 1,024 items, zod-bounded) and reads the roots it names, at registration; runs none",
  },
  'model/validate': {
    objectKey: 'a key from an identity',
    identifyObjects: 'reads a small text to identities only (admission.ts), before rights are checked',
    loadObjects: "loads a small text whose kinds declare no check (admission.ts), or a service's stored claim rolled back to (axebow/changes.ts): schemas, nothing evaluated",
    validateSourceObject: 'validates a claim Axebow built from checked input (axebow/objects.ts): its schema, nothing evaluated (claims declare no check)',
    dedupe: 'compares the keys of objects already loaded (admission.ts)',
  },
};

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return sources(p);
    return /\.tsx?$/.test(e.name) && !/\.test\.tsx?$/.test(e.name) ? [p] : [];
  });
}

/** Runtime imports and re-exports: `import {a, type B} from`, `import * as`, `export {…} from`, `import(…)`; not `import type`. */
const STATEMENT_RE = /(import|export)\s+(?!type\s)([^'";]*?)\s+from\s*['"]([^'"]+)['"]|import\s*\(\s*['"]([^'"]+)['"]\s*\)/g;

function importedNames(clause: string): string[] | 'everything' {
  if (/\*/.test(clause)) return 'everything';
  const braces = /\{([^}]*)\}/.exec(clause)?.[1];
  const names = (braces ?? '')
    .split(',')
    .map((n) => n.trim())
    .filter((n) => n && !n.startsWith('type '))
    .map((n) => n.split(/\s+as\s+/)[0]!);
  // A default import names the module's default export.
  const def = clause.replace(/\{[^}]*\}/, '').replace(/,/g, '').trim();
  return def ? [...names, 'default'] : names;
}

test('services and the APIs take nothing from the engine that evaluates policy', () => {
  const violations: string[] = [];
  const files = LAYERS.flatMap((l) => sources(join(SERVER, l)));
  assert.ok(files.length > 30, 'sources found');
  for (const file of files) {
    for (const m of readFileSync(file, 'utf8').matchAll(STATEMENT_RE)) {
      const spec = m[3] ?? m[4]!;
      if (!spec.startsWith('.')) continue;
      const target = relative(ENGINE, join(file, '..', spec)).replace(/\.tsx?$/, '');
      if (target.startsWith('..')) continue;
      const module = target === '' ? 'index' : target;
      if (!EVALUATING.some((e) => (e.endsWith('/') ? module === e.slice(0, -1) || module.startsWith(e) : module === e || module === `${e}/index`))) continue;
      const names = m[4] ? 'everything' : importedNames(m[2]!);
      const where = `${relative(SERVER, file)}: engine/${module}`;
      if (names === 'everything') violations.push(`${where} (the whole module)`);
      else for (const n of names) if (!ALLOWED[module]?.[n]) violations.push(`${where}: ${n}`);
    }
  }
  assert.deepEqual(violations, [], 'evaluate it on a resolver thread (server/resolver), or list here why it evaluates nothing');
});
