/**
 * `keelson policy`: which Implementation a Capact Interface resolves to
 * under the policies in the files given — offline, on files, with the same
 * engine the server runs (server/engine/capact/).
 *
 * The files hold the Hub (OCF manifests: Interfaces, Implementations,
 * Types, Attributes), the Local Hub's TypeInstances (`{id, typeRef, …}`)
 * and the Global policy (a document with `interface:`/`typeInstance:`
 * parts, or Keelson's `kind: policy` envelope). The Action policy comes
 * from its own file.
 */
import { readFileSync } from 'node:fs';
import { parseAllDocuments, stringify } from 'yaml';
import {
  chooseImplementation,
  DEFAULT_POLICY_ORDER,
  explain,
  loadHub,
  type MergeMode,
  mergeResolvedPolicies,
  parsePolicy,
  type Policy,
  type PolicyKind,
} from '../engine/capact';
import { collectFiles } from '../loader/files';
import { parse, UsageError } from './args';
import type { Io } from './main';

const HELP = `Usage: keelson policy PATH... --interface PATH[:REV] [options]

Choose the Implementation of a Capact Interface under the Global policy
found in PATHs (files or folders of *.yaml), merged with an Action policy,
and print the choice: the Implementation, the rule that decided, what is
injected, where outputs are stored, and why every other Implementation was
passed over.

  --interface PATH[:REV]   the Interface asked for (latest revision when none)
  --action-policy FILE     an Action policy to merge
  --order LIST             merge priority, highest first (default ${DEFAULT_POLICY_ORDER.join(',')})
  --merge MODE             documented (default: higher priority wins everywhere)
                           or capact-compat (Capact's code, quirks included)
  --implements MATCH       exact (default: Implementations name the Interface
                           revision they implement) or path (any revision, as
                           Capact's test Hub does)
  --format FORMAT          json (default), yaml, or text (the explanation)

Exit 0 when an Implementation is chosen, 1 when none is allowed or the
input is invalid, 2 on usage errors.
`;

const ORDER_NAMES: readonly PolicyKind[] = ['ACTION', 'GLOBAL', 'WORKFLOW'];

function parseOrder(text: string): PolicyKind[] {
  const order = text.split(',').map((s) => s.trim().toUpperCase());
  const bad = order.filter((o) => !ORDER_NAMES.includes(o as PolicyKind));
  if (bad.length) throw new UsageError(`--order takes ${ORDER_NAMES.join(', ')} (comma-separated), not ${bad.join(', ')}`);
  if (new Set(order).size !== order.length) throw new UsageError('--order names each kind of policy once');
  return order as PolicyKind[];
}

function parseInterface(text: string): { path: string; revision?: string } {
  const m = /^(cap(?:\.[A-Za-z0-9_-]+)+)(?::(\d+\.\d+\.\d+(?:[-+][\w.-]+)?))?$/.exec(text);
  if (!m) throw new UsageError(`--interface must be cap.interface.<path>[:<semver>], not "${text}"`);
  return m[2] ? { path: m[1]!, revision: m[2] } : { path: m[1]! };
}

/** A Capact policy document: Keelson's `kind: policy` envelope, or Capact's bare `{interface, typeInstance}`. */
function policyBody(doc: Record<string, unknown>): Record<string, unknown> | null {
  if (typeof doc.kind === 'string' && doc.kind.toLowerCase() === 'policy') {
    const { kind: _k, metadata: _m, ...rest } = doc;
    return rest;
  }
  if (doc.kind === undefined && doc.ocfVersion === undefined && (doc.interface !== undefined || doc.typeInstance !== undefined)) return doc;
  return null;
}

interface Read {
  manifests: unknown[];
  policies: { file: string; body: Record<string, unknown> }[];
  problems: string[];
}

function readDocuments(files: readonly string[]): Read {
  const out: Read = { manifests: [], policies: [], problems: [] };
  for (const file of files) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (e) {
      out.problems.push(`${file}: ${(e as Error).message}`);
      continue;
    }
    for (const doc of parseAllDocuments(text)) {
      if (doc.errors.length) {
        for (const err of doc.errors) out.problems.push(`${file}:${err.linePos?.[0]?.line ?? 1}:${err.linePos?.[0]?.col ?? 1}: ${err.message.split('\n')[0]}`);
        continue;
      }
      const value = doc.toJS({ maxAliasCount: 100 }) as unknown;
      if (value === null || typeof value !== 'object' || Array.isArray(value)) continue;
      const body = policyBody(value as Record<string, unknown>);
      if (body) out.policies.push({ file, body });
      else out.manifests.push(value);
    }
  }
  return out;
}

export async function policyCommand(argv: string[], io: Io): Promise<number> {
  let parsed;
  let iface: { path: string; revision?: string };
  let order: PolicyKind[] = [...DEFAULT_POLICY_ORDER];
  let mode: MergeMode = 'documented';
  try {
    parsed = parse(argv, {
      interface: { type: 'string' },
      'action-policy': { type: 'string' },
      order: { type: 'string' },
      merge: { type: 'string', default: 'documented' },
      implements: { type: 'string', default: 'exact' },
      format: { type: 'string', default: 'json' },
      help: { type: 'boolean', short: 'h' },
    });
    if (parsed.values.help) {
      io.out(HELP);
      return 0;
    }
    if (parsed.positionals.length === 0) throw new UsageError('name at least one file or folder holding the Hub and the Global policy');
    if (!parsed.values.interface) throw new UsageError('name the Interface with --interface cap.interface.<path>[:<revision>]');
    iface = parseInterface(String(parsed.values.interface));
    if (parsed.values.order) order = parseOrder(String(parsed.values.order));
    if (!['documented', 'capact-compat'].includes(String(parsed.values.merge))) throw new UsageError(`--merge must be documented or capact-compat, not "${parsed.values.merge}"`);
    mode = parsed.values.merge as MergeMode;
    if (!['exact', 'path'].includes(String(parsed.values.implements))) throw new UsageError(`--implements must be exact or path, not "${parsed.values.implements}"`);
    if (!['json', 'yaml', 'text'].includes(String(parsed.values.format))) throw new UsageError(`--format must be json, yaml or text, not "${parsed.values.format}"`);
  } catch (e) {
    if (e instanceof UsageError) {
      io.err(`keelson policy: ${e.message}\n\n${HELP}`);
      return 2;
    }
    throw e;
  }

  const { files, diagnostics } = collectFiles(parsed.positionals);
  const problems = diagnostics.filter((d) => d.severity === 'error').map((d) => `${d.file ?? ''}: ${d.message}`);
  const read = readDocuments(files);
  problems.push(...read.problems);
  if (read.policies.length > 1) problems.push(`more than one Global policy: ${read.policies.map((p) => p.file).join(', ')} (keep one; pass an Action policy with --action-policy)`);

  const policyOf = (what: string, file: string, body: unknown): Policy | undefined => {
    const r = parsePolicy(body);
    for (const e of r.errors) problems.push(`${file}: ${what}: ${e.message}`);
    return r.policy ?? undefined;
  };
  const global = read.policies[0] ? policyOf('Global policy', read.policies[0].file, read.policies[0].body) : undefined;
  let action: Policy | undefined;
  if (parsed.values['action-policy']) {
    const file = String(parsed.values['action-policy']);
    const docs = readDocuments([file]);
    problems.push(...docs.problems);
    const body = docs.policies[0]?.body ?? (docs.manifests[0] as Record<string, unknown> | undefined);
    if (!body) problems.push(`${file}: no policy in it`);
    else action = policyOf('Action policy', file, body);
  }
  const { hub, errors: hubErrors } = loadHub(read.manifests, { implementsMatch: parsed.values.implements as 'exact' | 'path' });
  problems.push(...hubErrors.map((e) => e.message));
  if (problems.length > 0) {
    for (const p of problems) io.err(`${p}\n`);
    io.err(`keelson policy: the input is invalid (${problems.length} problem${problems.length === 1 ? '' : 's'}); nothing was chosen\n`);
    return 1;
  }

  // No Global policy is Capact's missing ConfigMap: an empty policy, which allows nothing.
  // Unknown TypeInstance ids stay in the merged policy; the choice names them.
  const merged = mergeResolvedPolicies(hub, { global, action }, { order, mode }).policy;
  const choice = chooseImplementation(hub, merged, { interface: iface }, { mode });
  const output = {
    interface: choice.interface,
    implementation: choice.implementation,
    rule: choice.rule,
    injected: choice.injected,
    backends: choice.backends,
    rejected: choice.rejected.map((r) => ({ path: r.path, revision: r.revision, reason: r.reason })),
    errors: choice.errors.map((e) => e.message),
  };
  const format = String(parsed.values.format);
  if (format === 'text') {
    const x = explain(choice);
    const lines = [x.summary, ...(x.rule ? [`rule: ${x.rule}`] : []), ...x.candidates.map((c) => `  ${c.status === 'chosen' ? '✔' : '✘'} ${c.implementation}: ${c.reason}`)];
    lines.push(...x.injections.map((i) => `  inject ${i}`), ...x.backends.map((b) => `  ${b}`), ...x.errors.map((e) => `error: ${e}`));
    io.out(lines.join('\n') + '\n');
  } else {
    io.out(format === 'yaml' ? stringify(output) : JSON.stringify(output, null, 2) + '\n');
  }
  return choice.implementation && choice.ok ? 0 : 1;
}
