/**
 * A small regular-expression engine with Go `regexp` (RE2) syntax and
 * guaranteed linear-time matching, used by the `=~` / `!~` operators.
 *
 * Why not `new RegExp(...)`: JavaScript's engine backtracks, so a pattern
 * like `(a+)+$` against thirty `a`s followed by `!` runs for minutes and
 * blocks the whole server. Expressions are written by policy authors and the
 * matched strings come from claim labels, so either side may be hostile.
 * Go's engine cannot backtrack, and policies written for Aptomi were written
 * against Go's syntax (no backreferences, no look-around, `\z`, `(?i)`,
 * `[[:alpha:]]`, `(?P<name>...)`), so reproducing RE2 is both the safe and
 * the faithful choice.
 *
 * Only "does it match anywhere" is needed (govaluate calls `Regexp.Match`),
 * so the matcher is a Thompson NFA simulation without capture tracking:
 * O(len(input) × len(program)), with an explicit work budget on top.
 */

import { fail, ok, type Result } from './result';

/** Go limits counted repetitions to 1000 (`invalid repeat count`). */
const MAX_REPEAT = 1000;
/** Compiled program size cap; `(a{1000}){1000}` must not expand to 10^6 states. */
const MAX_PROGRAM = 20_000;
/** Parenthesis nesting cap (Go: "expression nests too deeply"). */
const MAX_NESTING = 1000;

type CharMatcher = (cp: number) => boolean;

type AssertKind = 'bol' | 'eol' | 'bot' | 'eot' | 'word' | 'nonword';

type Node =
  | { t: 'empty' }
  | { t: 'char'; match: CharMatcher }
  | { t: 'cat'; items: Node[] }
  | { t: 'alt'; items: Node[] }
  | { t: 'repeat'; x: Node; min: number; max: number } // max -1 = unbounded
  | { t: 'assert'; kind: AssertKind };

interface Flags {
  i: boolean; // case-insensitive
  m: boolean; // multi-line: ^ and $ match at line boundaries
  s: boolean; // dot matches \n
}

/** A compiled pattern. `test` returns undefined when the work budget runs out. */
export interface Re2 {
  readonly source: string;
  test(input: string, maxWork?: number): boolean | undefined;
}

/** Compiles a Go-syntax pattern; errors use Go's wording (`missing closing )`). */
export function compileRe2(pattern: string): Result<Re2> {
  try {
    const node = new Parser(pattern).parse();
    const prog = compileProgram(node);
    return ok(new Program(pattern, prog));
  } catch (e) {
    if (e instanceof RegexSyntaxError) {
      return fail({ code: 'expr_parse_error', message: `error parsing regexp: ${e.message}` });
    }
    throw e;
  }
}

class RegexSyntaxError extends Error {}

// ---------------------------------------------------------------------------
// Character classes

/** Ranges are inclusive [lo, hi] pairs over code points. */
type Ranges = [number, number][];

const ASCII_DIGIT: Ranges = [[0x30, 0x39]];
const ASCII_SPACE: Ranges = [[0x09, 0x0a], [0x0c, 0x0d], [0x20, 0x20]];
const ASCII_WORD: Ranges = [[0x30, 0x39], [0x41, 0x5a], [0x5f, 0x5f], [0x61, 0x7a]];

const POSIX_CLASSES: Record<string, Ranges> = {
  alnum: [[0x30, 0x39], [0x41, 0x5a], [0x61, 0x7a]],
  alpha: [[0x41, 0x5a], [0x61, 0x7a]],
  ascii: [[0x00, 0x7f]],
  blank: [[0x09, 0x09], [0x20, 0x20]],
  cntrl: [[0x00, 0x1f], [0x7f, 0x7f]],
  digit: ASCII_DIGIT,
  graph: [[0x21, 0x7e]],
  lower: [[0x61, 0x7a]],
  print: [[0x20, 0x7e]],
  punct: [[0x21, 0x2f], [0x3a, 0x40], [0x5b, 0x60], [0x7b, 0x7e]],
  space: [[0x09, 0x0d], [0x20, 0x20]],
  upper: [[0x41, 0x5a]],
  word: ASCII_WORD,
  xdigit: [[0x30, 0x39], [0x41, 0x46], [0x61, 0x66]],
};

function inRanges(ranges: Ranges, cp: number): boolean {
  for (const [lo, hi] of ranges) if (cp >= lo && cp <= hi) return true;
  return false;
}

function isWordChar(cp: number): boolean {
  return inRanges(ASCII_WORD, cp);
}

/**
 * Unicode classes (`\pL`, `\p{Greek}`) are delegated to JS's own Unicode
 * property tables. Each test matches exactly one code point against a single
 * class, so it cannot backtrack.
 */
function unicodeClass(name: string): CharMatcher {
  if (!/^[A-Za-z_]+$/.test(name)) throw new RegexSyntaxError(`invalid character class range: \`\\p{${name}}\``);
  if (name === 'Any') return () => true;
  for (const source of [`^\\p{${name}}$`, `^\\p{Script=${name}}$`]) {
    let re: RegExp;
    try {
      re = new RegExp(source, 'u');
    } catch {
      continue;
    }
    return (cp) => re.test(String.fromCodePoint(cp));
  }
  throw new RegexSyntaxError(`invalid character class range: \`\\p{${name}}\``);
}

/** Simple case folding: the code points that match `cp` case-insensitively. */
function foldOrbit(cp: number): number[] {
  const out = [cp];
  const ch = String.fromCodePoint(cp);
  for (const variant of [ch.toLowerCase(), ch.toUpperCase()]) {
    const v = variant.codePointAt(0);
    if (v !== undefined && variant.length === String.fromCodePoint(v).length && !out.includes(v)) out.push(v);
  }
  // Go's fold orbits include these non-ASCII partners of ASCII letters.
  if (cp === 0x6b || cp === 0x4b) out.push(0x212a); // k, K ~ Kelvin sign
  if (cp === 0x73 || cp === 0x53) out.push(0x17f); // s, S ~ long s
  if (cp === 0x212a) out.push(0x6b, 0x4b);
  if (cp === 0x17f) out.push(0x73, 0x53);
  return out;
}

function literalMatcher(cp: number, fold: boolean): CharMatcher {
  if (!fold) return (c) => c === cp;
  const orbit = foldOrbit(cp);
  if (orbit.length === 1) return (c) => c === cp;
  return (c) => orbit.includes(c);
}

/** A bracket class or Perl class: positive parts OR-ed, then optionally negated. */
class ClassBuilder {
  ranges: Ranges = [];
  predicates: CharMatcher[] = [];

  addRange(lo: number, hi: number): void {
    this.ranges.push([lo, hi]);
  }

  addRanges(ranges: Ranges, negate: boolean): void {
    if (!negate) {
      for (const r of ranges) this.ranges.push(r);
    } else {
      this.predicates.push((cp) => !inRanges(ranges, cp));
    }
  }

  build(negate: boolean, fold: boolean): CharMatcher {
    const ranges = this.ranges;
    const preds = this.predicates;
    const base: CharMatcher = (cp) => inRanges(ranges, cp) || preds.some((p) => p(cp));
    const folded: CharMatcher = fold ? (cp) => foldOrbit(cp).some(base) : base;
    return negate ? (cp) => !folded(cp) : folded;
  }
}

// ---------------------------------------------------------------------------
// Parser (Go regexp/syntax with Perl flags)

class Parser {
  private pos = 0;
  private depth = 0;

  constructor(private readonly src: string) {}

  parse(): Node {
    const node = this.parseAlt({ i: false, m: false, s: false });
    if (this.pos < this.src.length) {
      // Only an unmatched ')' can stop the top-level alternation early.
      throw new RegexSyntaxError(`unexpected ): \`${this.src}\``);
    }
    return node;
  }

  private peek(): number | undefined {
    return this.src.codePointAt(this.pos);
  }

  private next(): number {
    const cp = this.src.codePointAt(this.pos);
    if (cp === undefined) throw new RegexSyntaxError('unexpected end of pattern');
    this.pos += cp > 0xffff ? 2 : 1;
    return cp;
  }

  private lookingAt(s: string): boolean {
    return this.src.startsWith(s, this.pos);
  }

  private parseAlt(flags: Flags): Node {
    const items: Node[] = [this.parseConcat(flags)];
    while (this.peek() === 0x7c /* | */) {
      this.pos++;
      items.push(this.parseConcat(flags));
    }
    return items.length === 1 ? (items[0] as Node) : { t: 'alt', items };
  }

  private parseConcat(flags: Flags): Node {
    const items: Node[] = [];
    for (;;) {
      const c = this.peek();
      if (c === undefined || c === 0x7c || c === 0x29 /* ) */) break;
      if (c === 0x28 /* ( */ && this.lookingAt('(?') && this.tryFlagGroup(flags)) continue;
      const atom = this.parseAtom(flags);
      if (atom === undefined) continue;
      items.push(this.parseRepeats(atom));
    }
    if (items.length === 0) return { t: 'empty' };
    return items.length === 1 ? (items[0] as Node) : { t: 'cat', items };
  }

  /** `(?i)`-style groups change the flags for the rest of the current group. */
  private tryFlagGroup(flags: Flags): boolean {
    const m = /^\(\?([imsU]*)(?:-([imsU]*))?\)/.exec(this.src.slice(this.pos, this.pos + 16));
    if (!m) return false;
    checkFlagSyntax(m[0], m[1] ?? '', m[2]);
    this.applyFlags(flags, m[1] ?? '', m[2] ?? '');
    this.pos += m[0].length;
    return true;
  }

  private applyFlags(flags: Flags, on: string, off: string): void {
    for (const f of on) if (f === 'i' || f === 'm' || f === 's') flags[f] = true;
    for (const f of off) if (f === 'i' || f === 'm' || f === 's') flags[f] = false;
  }

  private parseRepeats(atom: Node): Node {
    let node = atom;
    let repeated = false;
    for (;;) {
      const start = this.pos;
      const c = this.peek();
      let min: number;
      let max: number;
      if (c === 0x2a /* * */) [min, max] = [0, -1];
      else if (c === 0x2b /* + */) [min, max] = [1, -1];
      else if (c === 0x3f /* ? */) [min, max] = [0, 1];
      else if (c === 0x7b /* { */) {
        const m = /^\{(\d+)(?:(,)(\d*))?\}/.exec(this.src.slice(this.pos, this.pos + 24));
        if (!m) break; // not a repeat: `{` is a literal
        min = Number(m[1]);
        max = m[2] === undefined ? min : m[3] === '' ? -1 : Number(m[3]);
        if (min > MAX_REPEAT || max > MAX_REPEAT || (max >= 0 && max < min)) {
          throw new RegexSyntaxError(`invalid repeat count: \`${m[0]}\``);
        }
        this.pos += m[0].length - 1;
      } else break;
      this.pos++;
      if (this.peek() === 0x3f) this.pos++; // non-greedy: irrelevant for a yes/no match
      if (repeated) {
        throw new RegexSyntaxError(`invalid nested repetition operator: \`${this.src.slice(start - 1, this.pos)}\``);
      }
      repeated = true;
      node = { t: 'repeat', x: node, min, max };
    }
    return node;
  }

  private parseAtom(flags: Flags): Node | undefined {
    const start = this.pos;
    const c = this.next();
    switch (c) {
      case 0x28: // (
        return this.parseGroup(flags, start);
      case 0x2e: // .
        return { t: 'char', match: flags.s ? () => true : (cp) => cp !== 0x0a };
      case 0x5e: // ^
        return { t: 'assert', kind: flags.m ? 'bol' : 'bot' };
      case 0x24: // $
        return { t: 'assert', kind: flags.m ? 'eol' : 'eot' };
      case 0x5b: // [
        return { t: 'char', match: this.parseClass(flags, start) };
      case 0x5c: // backslash
        return this.parseEscapeAtom(flags, start);
      case 0x2a: case 0x2b: case 0x3f: // * + ?
        throw new RegexSyntaxError(`missing argument to repetition operator: \`${String.fromCodePoint(c)}\``);
      case 0x7b: { // {
        // A valid repeat with nothing before it is an error; otherwise a literal.
        if (/^\{\d+(,\d*)?\}/.test(this.src.slice(start, start + 24))) {
          throw new RegexSyntaxError(`missing argument to repetition operator: \`${this.src.slice(start, this.src.indexOf('}', start) + 1)}\``);
        }
        return { t: 'char', match: literalMatcher(c, flags.i) };
      }
      default:
        return { t: 'char', match: literalMatcher(c, flags.i) };
    }
  }

  private parseGroup(outer: Flags, start: number): Node {
    if (++this.depth > MAX_NESTING) throw new RegexSyntaxError('expression nests too deeply');
    const flags: Flags = { ...outer };
    if (this.lookingAt('?')) {
      const rest = this.src.slice(this.pos, this.pos + 300);
      const named = /^\?P?<([A-Za-z0-9_]+)>/.exec(rest);
      const flagged = /^\?([imsU]*)(?:-([imsU]*))?:/.exec(rest);
      if (named) this.pos += named[0].length;
      else if (flagged) {
        if (flagged[0] !== '?:') checkFlagSyntax('(' + flagged[0], flagged[1] ?? '', flagged[2]);
        this.applyFlags(flags, flagged[1] ?? '', flagged[2] ?? '');
        this.pos += flagged[0].length;
      } else {
        const shown = this.src.slice(start, Math.min(this.src.length, start + 4));
        throw new RegexSyntaxError(`invalid or unsupported Perl syntax: \`${shown}\``);
      }
    }
    const inner = this.parseAlt(flags);
    if (this.peek() !== 0x29) throw new RegexSyntaxError(`missing closing ): \`${this.src}\``);
    this.pos++;
    this.depth--;
    return inner;
  }

  private parseEscapeAtom(flags: Flags, start: number): Node | undefined {
    const c = this.peek();
    switch (c) {
      case 0x41: this.pos++; return { t: 'assert', kind: 'bot' }; // \A
      case 0x7a: this.pos++; return { t: 'assert', kind: 'eot' }; // \z
      case 0x62: this.pos++; return { t: 'assert', kind: 'word' }; // \b
      case 0x42: this.pos++; return { t: 'assert', kind: 'nonword' }; // \B
      case 0x51: { // \Q...\E literal text
        this.pos++;
        const end = this.src.indexOf('\\E', this.pos);
        const text = end < 0 ? this.src.slice(this.pos) : this.src.slice(this.pos, end);
        this.pos = end < 0 ? this.src.length : end + 2;
        const items: Node[] = [...text].map((ch) => ({ t: 'char', match: literalMatcher(ch.codePointAt(0) ?? 0, flags.i) }));
        if (items.length === 0) return undefined;
        return items.length === 1 ? items[0] : { t: 'cat', items };
      }
    }
    const cls = new ClassBuilder();
    if (this.parsePerlOrUnicodeClass(cls)) {
      return { t: 'char', match: cls.build(false, flags.i) };
    }
    this.pos = start;
    return { t: 'char', match: literalMatcher(this.parseEscapeChar(), flags.i) };
  }

  /** After a backslash: `\d \s \w` (and negations) or `\pL \p{Name} \P...`. */
  private parsePerlOrUnicodeClass(cls: ClassBuilder): boolean {
    const c = this.peek();
    const perl: Record<number, [Ranges, boolean]> = {
      0x64: [ASCII_DIGIT, false], 0x44: [ASCII_DIGIT, true],
      0x73: [ASCII_SPACE, false], 0x53: [ASCII_SPACE, true],
      0x77: [ASCII_WORD, false], 0x57: [ASCII_WORD, true],
    };
    if (c !== undefined && perl[c]) {
      const [ranges, negate] = perl[c];
      this.pos++;
      cls.addRanges(ranges, negate);
      return true;
    }
    if (c === 0x70 || c === 0x50) { // p, P
      this.pos++;
      let negate = c === 0x50;
      let name: string;
      if (this.peek() === 0x7b) {
        const end = this.src.indexOf('}', this.pos);
        if (end < 0) throw new RegexSyntaxError(`invalid character class range: \`${this.src.slice(this.pos - 2)}\``);
        name = this.src.slice(this.pos + 1, end);
        this.pos = end + 1;
        if (name.startsWith('^')) {
          negate = !negate;
          name = name.slice(1);
        }
      } else {
        const cp = this.peek();
        if (cp === undefined) throw new RegexSyntaxError('invalid escape sequence: `\\p`');
        name = String.fromCodePoint(this.next());
      }
      const match = unicodeClass(name);
      cls.predicates.push(negate ? (x) => !match(x) : match);
      return true;
    }
    return false;
  }

  /** Parses one escaped character at `\`; Go rejects unknown letter escapes. */
  private parseEscapeChar(): number {
    const start = this.pos;
    this.pos++; // backslash
    if (this.pos >= this.src.length) throw new RegexSyntaxError('trailing backslash at end of expression');
    const c = this.next();
    const invalid = () => new RegexSyntaxError(`invalid escape sequence: \`${this.src.slice(start, this.pos)}\``);
    // Escaped ASCII punctuation always stands for itself.
    if (c < 0x80 && !/[A-Za-z0-9]/.test(String.fromCharCode(c))) return c;
    if (c >= 0x30 && c <= 0x37) {
      // Octal; a single non-zero digit would be a backreference (unsupported).
      const more = /^[0-7]{0,2}/.exec(this.src.slice(this.pos, this.pos + 2))?.[0] ?? '';
      if (c !== 0x30 && more === '') throw invalid();
      this.pos += more.length;
      return parseInt(String.fromCharCode(c) + more, 8);
    }
    switch (c) {
      case 0x61: return 7; // \a
      case 0x66: return 12; // \f
      case 0x6e: return 10; // \n
      case 0x72: return 13; // \r
      case 0x74: return 9; // \t
      case 0x76: return 11; // \v
      case 0x78: { // \x
        if (this.peek() === 0x7b) {
          const m = /^\{([0-9A-Fa-f]+)\}/.exec(this.src.slice(this.pos, this.pos + 12));
          if (!m || parseInt(m[1] ?? '', 16) > 0x10ffff) throw invalid();
          this.pos += m[0].length;
          return parseInt(m[1] ?? '', 16);
        }
        const m = /^[0-9A-Fa-f]{2}/.exec(this.src.slice(this.pos, this.pos + 2));
        if (!m) throw invalid();
        this.pos += 2;
        return parseInt(m[0], 16);
      }
    }
    throw invalid();
  }

  private parseClass(flags: Flags, start: number): CharMatcher {
    const cls = new ClassBuilder();
    let negate = false;
    if (this.peek() === 0x5e) {
      negate = true;
      this.pos++;
    }
    let first = true;
    for (;;) {
      const c = this.peek();
      if (c === undefined) throw new RegexSyntaxError(`missing closing ]: \`${this.src.slice(start)}\``);
      if (c === 0x5d && !first) {
        this.pos++;
        break;
      }
      first = false;
      if (this.lookingAt('[:')) {
        const m = /^\[:(\^?)([a-z]+):\]/.exec(this.src.slice(this.pos, this.pos + 12));
        if (m) {
          const ranges = POSIX_CLASSES[m[2] ?? ''];
          if (!ranges) throw new RegexSyntaxError(`invalid character class range: \`${m[0]}\``);
          cls.addRanges(ranges, m[1] === '^');
          this.pos += m[0].length;
          continue;
        }
      }
      if (c === 0x5c) {
        const save = this.pos;
        this.pos++;
        if (this.parsePerlOrUnicodeClass(cls)) continue;
        this.pos = save;
      }
      const rangeStart = this.pos;
      const lo = this.parseClassChar();
      let hi = lo;
      if (this.peek() === 0x2d /* - */ && this.src.codePointAt(this.pos + 1) !== 0x5d && this.pos + 1 < this.src.length) {
        this.pos++;
        hi = this.parseClassChar();
        if (hi < lo) throw new RegexSyntaxError(`invalid character class range: \`${this.src.slice(rangeStart, this.pos)}\``);
      }
      cls.addRange(lo, hi);
    }
    return cls.build(negate, flags.i);
  }

  private parseClassChar(): number {
    if (this.peek() === 0x5c) return this.parseEscapeChar();
    return this.next();
  }
}

/** Go rejects flag groups that set nothing: `(?)`, `(?-)`, `(?i-)`. */
function checkFlagSyntax(text: string, on: string, off: string | undefined): void {
  if ((on === '' && off === undefined) || off === '') {
    throw new RegexSyntaxError(`invalid or unsupported Perl syntax: \`${text}\``);
  }
}

// ---------------------------------------------------------------------------
// Compilation to a Thompson NFA

type Inst =
  | { op: 'char'; match: CharMatcher; next: number }
  | { op: 'split'; x: number; y: number }
  | { op: 'jmp'; next: number }
  | { op: 'assert'; kind: AssertKind; next: number }
  | { op: 'match' };

function compileProgram(root: Node): Inst[] {
  const prog: Inst[] = [];
  const emit = (inst: Inst): number => {
    if (prog.length >= MAX_PROGRAM) throw new RegexSyntaxError('expression too large');
    prog.push(inst);
    return prog.length - 1;
  };
  // Each fragment is compiled so that it falls through to the next emitted
  // instruction; `patch` fixes forward jumps once their target is known.
  const patchNext = (at: number, target: number) => {
    const inst = prog[at];
    if (inst && (inst.op === 'char' || inst.op === 'jmp' || inst.op === 'assert')) inst.next = target;
  };
  const gen = (n: Node): void => {
    switch (n.t) {
      case 'empty':
        return;
      case 'char': {
        const at = emit({ op: 'char', match: n.match, next: -1 });
        patchNext(at, at + 1);
        return;
      }
      case 'assert': {
        const at = emit({ op: 'assert', kind: n.kind, next: -1 });
        patchNext(at, at + 1);
        return;
      }
      case 'cat':
        for (const item of n.items) gen(item);
        return;
      case 'alt': {
        // split L1, next; L1: a; jmp end; next: split ... ; last
        const jumps: number[] = [];
        n.items.forEach((item, idx) => {
          if (idx < n.items.length - 1) {
            const split = emit({ op: 'split', x: -1, y: -1 });
            (prog[split] as { x: number }).x = split + 1;
            gen(item);
            jumps.push(emit({ op: 'jmp', next: -1 }));
            (prog[split] as { y: number }).y = prog.length;
          } else gen(item);
        });
        for (const j of jumps) patchNext(j, prog.length);
        return;
      }
      case 'repeat': {
        for (let k = 0; k < n.min; k++) gen(n.x);
        if (n.max < 0) {
          // x*: L: split body, end; body; jmp L
          const split = emit({ op: 'split', x: -1, y: -1 });
          gen(n.x);
          emit({ op: 'jmp', next: split });
          (prog[split] as { x: number; y: number }).x = split + 1;
          (prog[split] as { y: number }).y = prog.length;
          return;
        }
        // x{0,k}: nested optional copies, each skipping to the common end.
        const splits: number[] = [];
        for (let k = n.min; k < n.max; k++) {
          const split = emit({ op: 'split', x: -1, y: -1 });
          (prog[split] as { x: number }).x = split + 1;
          splits.push(split);
          gen(n.x);
        }
        for (const s of splits) (prog[s] as { y: number }).y = prog.length;
        return;
      }
    }
  };
  gen(root);
  emit({ op: 'match' });
  return prog;
}

class Program implements Re2 {
  constructor(
    readonly source: string,
    private readonly prog: Inst[],
  ) {}

  test(input: string, maxWork = Number.POSITIVE_INFINITY): boolean | undefined {
    const prog = this.prog;
    const cps: number[] = [];
    for (const ch of input) cps.push(ch.codePointAt(0) ?? 0);
    const n = cps.length;

    // `mark[pc] === gen` means pc is already in the current state set.
    const mark = new Int32Array(prog.length).fill(-1);
    let gen = 0;
    let clist: number[] = [];
    let nlist: number[] = [];
    const stack: number[] = [];
    let work = 0;

    // Follows epsilon edges from `pc` at position `pos`, adding every char
    // instruction reached to `list`. Returns true if a match state is reached.
    const addThread = (list: number[], start: number, pos: number): boolean => {
      stack.push(start);
      while (stack.length > 0) {
        const pc = stack.pop() as number;
        if (mark[pc] === gen) continue;
        mark[pc] = gen;
        work++;
        const inst = prog[pc] as Inst;
        switch (inst.op) {
          case 'match':
            return true;
          case 'char':
            list.push(pc);
            break;
          case 'jmp':
            stack.push(inst.next);
            break;
          case 'split':
            stack.push(inst.y, inst.x);
            break;
          case 'assert':
            if (assertHolds(inst.kind, cps, pos)) stack.push(inst.next);
            break;
        }
      }
      return false;
    };

    for (let pos = 0; ; pos++) {
      // Unanchored search: a new thread may start at every position.
      stack.length = 0;
      if (addThread(clist, 0, pos)) return true;
      if (pos >= n || work > maxWork) return pos >= n ? false : undefined;
      const c = cps[pos] as number;
      gen++;
      nlist.length = 0;
      for (const pc of clist) {
        const inst = prog[pc] as Extract<Inst, { op: 'char' }>;
        work++;
        if (inst.match(c)) {
          stack.length = 0;
          if (addThread(nlist, inst.next, pos + 1)) return true;
        }
      }
      [clist, nlist] = [nlist, clist];
    }
  }
}

function assertHolds(kind: AssertKind, cps: number[], pos: number): boolean {
  const n = cps.length;
  switch (kind) {
    case 'bot':
      return pos === 0;
    case 'eot':
      return pos === n;
    case 'bol':
      return pos === 0 || cps[pos - 1] === 0x0a;
    case 'eol':
      return pos === n || cps[pos] === 0x0a;
    case 'word':
    case 'nonword': {
      const before = pos > 0 && isWordChar(cps[pos - 1] as number);
      const after = pos < n && isWordChar(cps[pos] as number);
      return (before !== after) === (kind === 'word');
    }
  }
}
