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

/**
 * What one walk asks of each read of the data: does reading the whole root
 * (`.` at the top level, a bare `$`) count, and does a path from the root
 * (`.A.B`, `$.A.B`) count.
 */
interface Question {
  root: boolean;
  path: (idents: readonly string[]) => boolean;
}

/** Fields of `.User` that hold no secret. */
const USER_PUBLIC = new Set(['Name', 'ID', 'Labels']);

type Pipe = Extract<TNode, { k: 'action' }>['pipe'];
type Operand = Pipe['cmds'][number]['args'][number];

export function templateMayReadSecrets(t: CompiledTemplate, opts: ReadsOptions = {}): boolean {
  return listReads(t.root, true, { root: true, path: (idents) => secretPath(idents, opts) });
}

/** Does the template read `.Discovery` at all (so its output inherits discovery's taint)? */
export function templateReadsDiscovery(t: CompiledTemplate): boolean {
  return listReads(t.root, true, { root: false, path: (idents) => idents[0] === 'Discovery' });
}

/**
 * Could the template read the root field `root` (`User`, `Claim`,
 * `Discovery`) in any way: through its name, or through the whole root
 * (`{{ . }}`, `{{ print $ }}`, ranging over it)? Memoised walks may be shared
 * only when this says no.
 */
export function templateReadsRoot(t: CompiledTemplate, root: string): boolean {
  return listReads(t.root, true, { root: true, path: (idents) => idents[0] === root });
}

function listReads(list: readonly TNode[], topLevel: boolean, q: Question): boolean {
  for (const n of list) {
    switch (n.k) {
      case 'text':
      case 'break':
      case 'continue':
        break;
      case 'action':
        if (pipeReads(n.pipe, topLevel, q)) return true;
        break;
      case 'if':
        if (pipeReads(n.pipe, topLevel, q) || listReads(n.list, topLevel, q) || (n.elseList && listReads(n.elseList, topLevel, q))) return true;
        break;
      case 'with':
      case 'range':
        if (pipeReads(n.pipe, topLevel, q)) return true;
        // Inside, dot is the pipe's value (which did not count); `else` runs with the outer dot.
        if (listReads(n.list, false, q) || (n.elseList && listReads(n.elseList, topLevel, q))) return true;
        break;
    }
  }
  return false;
}

function pipeReads(p: Pipe, topLevel: boolean, q: Question): boolean {
  return p.cmds.some((c) => c.args.some((a) => operandReads(a, topLevel, q)));
}

function operandReads(a: Operand, topLevel: boolean, q: Question): boolean {
  switch (a.k) {
    case 'dot':
      return topLevel && q.root;
    case 'field':
      return topLevel && q.path(a.idents);
    case 'var':
      // `$` is always the root; other variables were declared from pipes checked where declared.
      return a.name === '$' && (a.idents.length === 0 ? q.root : q.path(a.idents));
    case 'chain':
      return operandReads(a.node, topLevel, q);
    case 'pipe':
      return pipeReads(a.pipe, topLevel, q);
    default:
      return false;
  }
}

/** `.User` alone or `.User.<not public>`; `.Discovery…` when discovery may hold secrets. */
function secretPath(idents: readonly string[], opts: ReadsOptions): boolean {
  const [head, next] = idents;
  if (head === 'Discovery') return opts.discoveryTainted === true;
  if (head === 'User') return next === undefined || !USER_PUBLIC.has(next);
  return false;
}
