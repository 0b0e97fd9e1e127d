/**
 * What a template could read, decided on its parse tree — not by searching
 * its text, which misses `{{ .User }}`, `{{ print . }}` or `{{ $ }}` (each
 * prints the user's secrets) and is fooled by names in comments.
 *
 * The data a policy template sees is `{User, Labels, Target, Discovery}`.
 * The analysis is conservative: any use of a value that holds secrets
 * counts, whether printed, compared, passed to a function or ranged over,
 * since each can carry a secret (or a bit of one) into the output.
 *  - the root (`.` at the top level, `$`) holds the user: it counts;
 *  - `.User` alone or `.User.<anything but Name, ID, Labels>` counts;
 *  - `.Discovery…` counts when the caller says discovery may carry secrets
 *    (another component's discovery rendered from them);
 *  - inside `with`/`range`, dot is what the pipe produced: if that counted,
 *    the template already counts, so dot needs no tracking there.
 */
import type { CompiledTemplate, TNode } from './parse';

export interface ReadsOptions {
  /** Discovery values may hold secrets: reading `.Discovery` counts. */
  discoveryTainted?: boolean;
}

/** Fields of `.User` that hold no secret. */
const USER_PUBLIC = new Set(['Name', 'ID', 'Labels']);

type Pipe = Extract<TNode, { k: 'action' }>['pipe'];
type Operand = Pipe['cmds'][number]['args'][number];

export function templateMayReadSecrets(t: CompiledTemplate, opts: ReadsOptions = {}): boolean {
  return listReads(t.root, true, opts);
}

/** Does the template read `.Discovery` at all (so its output inherits discovery's taint)? */
export function templateReadsDiscovery(t: CompiledTemplate): boolean {
  return listReads(t.root, true, { discoveryTainted: true, onlyDiscovery: true } as ReadsOptions & { onlyDiscovery: boolean });
}

function listReads(list: readonly TNode[], topLevel: boolean, opts: ReadsOptions): boolean {
  for (const n of list) {
    switch (n.k) {
      case 'text':
      case 'break':
      case 'continue':
        break;
      case 'action':
        if (pipeReads(n.pipe, topLevel, opts)) return true;
        break;
      case 'if':
        if (pipeReads(n.pipe, topLevel, opts) || listReads(n.list, topLevel, opts) || (n.elseList && listReads(n.elseList, topLevel, opts))) return true;
        break;
      case 'with':
      case 'range':
        if (pipeReads(n.pipe, topLevel, opts)) return true;
        // Inside, dot is the pipe's value (which did not count); `else` runs with the outer dot.
        if (listReads(n.list, false, opts) || (n.elseList && listReads(n.elseList, topLevel, opts))) return true;
        break;
    }
  }
  return false;
}

function pipeReads(p: Pipe, topLevel: boolean, opts: ReadsOptions): boolean {
  return p.cmds.some((c) => c.args.some((a) => operandReads(a, topLevel, opts)));
}

function operandReads(a: Operand, topLevel: boolean, opts: ReadsOptions): boolean {
  const onlyDiscovery = (opts as { onlyDiscovery?: boolean }).onlyDiscovery === true;
  switch (a.k) {
    case 'dot':
      return !onlyDiscovery && topLevel;
    case 'field':
      return topLevel && pathReads(a.idents, opts, onlyDiscovery);
    case 'var':
      // `$` is always the root; other variables were declared from pipes checked where declared.
      return a.name === '$' && (a.idents.length === 0 ? !onlyDiscovery : pathReads(a.idents, opts, onlyDiscovery));
    case 'chain':
      return operandReads(a.node, topLevel, opts);
    case 'pipe':
      return pipeReads(a.pipe, topLevel, opts);
    default:
      return false;
  }
}

function pathReads(idents: readonly string[], opts: ReadsOptions, onlyDiscovery: boolean): boolean {
  const [head, next] = idents;
  if (head === 'Discovery') return opts.discoveryTainted === true;
  if (onlyDiscovery) return false;
  if (head === 'User') return next === undefined || !USER_PUBLIC.has(next);
  return false;
}
