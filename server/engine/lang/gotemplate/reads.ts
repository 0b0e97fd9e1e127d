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

/** The walk's question: secrets (the options above), or any read of one root field. */
interface WalkOptions extends ReadsOptions {
  onlyDiscovery?: boolean;
  /** Count any read of this root field (`.Root…`, `$.Root…`), and of the root itself (`.`, `$`), which holds it. */
  root?: string;
}

/** Fields of `.User` that hold no secret. */
const USER_PUBLIC = new Set(['Name', 'ID', 'Labels']);

type Pipe = Extract<TNode, { k: 'action' }>['pipe'];
type Operand = Pipe['cmds'][number]['args'][number];

export function templateMayReadSecrets(t: CompiledTemplate, opts: WalkOptions = {}): boolean {
  return listReads(t.root, true, opts);
}

/** Does the template read `.Discovery` at all (so its output inherits discovery's taint)? */
export function templateReadsDiscovery(t: CompiledTemplate): boolean {
  return listReads(t.root, true, { discoveryTainted: true, onlyDiscovery: true });
}

/**
 * Could the template read the root field `root` (`User`, `Claim`,
 * `Discovery`) in any way: through its name, or through the whole root
 * (`{{ . }}`, `{{ print $ }}`, ranging over it)? Memoised walks may be shared
 * only when this says no.
 */
export function templateReadsRoot(t: CompiledTemplate, root: string): boolean {
  return listReads(t.root, true, { root });
}

function listReads(list: readonly TNode[], topLevel: boolean, opts: WalkOptions): boolean {
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

function pipeReads(p: Pipe, topLevel: boolean, opts: WalkOptions): boolean {
  return p.cmds.some((c) => c.args.some((a) => operandReads(a, topLevel, opts)));
}

function operandReads(a: Operand, topLevel: boolean, opts: WalkOptions): boolean {
  if (opts.root !== undefined) return operandReadsRoot(a, topLevel, opts);
  const onlyDiscovery = opts.onlyDiscovery === true;
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

function operandReadsRoot(a: Operand, topLevel: boolean, opts: WalkOptions): boolean {
  switch (a.k) {
    case 'dot':
      return topLevel;
    case 'field':
      return topLevel && a.idents[0] === opts.root;
    case 'var':
      return a.name === '$' && (a.idents.length === 0 || a.idents[0] === opts.root);
    case 'chain':
      return operandReads(a.node, topLevel, opts);
    case 'pipe':
      return pipeReads(a.pipe, topLevel, opts);
    default:
      return false;
  }
}

function pathReads(idents: readonly string[], opts: WalkOptions, onlyDiscovery: boolean): boolean {
  const [head, next] = idents;
  if (head === 'Discovery') return opts.discoveryTainted === true;
  if (onlyDiscovery) return false;
  if (head === 'User') return next === undefined || !USER_PUBLIC.has(next);
  return false;
}
