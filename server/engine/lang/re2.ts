/**
 * Go `regexp` (RE2) patterns for the `=~` / `!~` operators, matched by
 * re2js, a maintained JavaScript port of RE2.
 *
 * Why not `new RegExp(...)`: JavaScript's engine backtracks, so a pattern
 * like `(a+)+$` against thirty `a`s followed by `!` runs for minutes and
 * blocks the whole server. Expressions are written by policy authors and the
 * matched strings come from claim labels, so either side may be hostile.
 * RE2 cannot backtrack, and policies written for Aptomi were written against
 * Go's syntax (no backreferences, no look-around, `\z`, `(?i)`,
 * `[[:alpha:]]`, `(?P<name>...)`), which re2js parses as Go does, with Go's
 * error wording (`missing closing )`).
 *
 * What this wrapper adds: errors as `Result`s, caps on pattern size (a
 * pattern is user input too, and compiling it costs time and memory), and a
 * work budget per match.
 */

import { RE2JS, RE2JSException, RE2JSSyntaxException } from 're2js';
import { fail, ok, type LangError, type Result } from './result';

/** Longest pattern compiled, in UTF-16 units: bounds compile time before the program cap can apply. */
const MAX_PATTERN_LENGTH = 20_000;
/** Compiled program size cap; `a{1000}b{1000}…` must not compile to an unbounded program. */
const MAX_PROGRAM = 20_000;
/** Go's (and re2js's) largest repeat count. */
const MAX_REPEAT = 1000;

/** A compiled pattern. `test` returns undefined when the work budget runs out. */
export interface Re2 {
  readonly source: string;
  test(input: string, maxWork?: number): boolean | undefined;
}

/** Compiles a Go-syntax pattern; errors use Go's wording (`missing closing )`). */
export function compileRe2(pattern: string): Result<Re2> {
  if (pattern.length > MAX_PATTERN_LENGTH) return fail(tooLarge());
  let re: RE2JS;
  try {
    re = RE2JS.compile(pattern);
  } catch (e) {
    if (e instanceof RE2JSException) return fail(syntaxError(e));
    throw e;
  }
  const size = re.programSize();
  if (size > MAX_PROGRAM) return fail(tooLarge());
  return ok(new Re2Pattern(pattern, re, size));
}

class Re2Pattern implements Re2 {
  constructor(
    readonly source: string,
    private readonly re: RE2JS,
    private readonly programSize: number,
  ) {}

  test(input: string, maxWork = Number.POSITIVE_INFINITY): boolean | undefined {
    // A match cannot be stopped midway, so the budget is held against RE2's
    // linear bound before it starts: at every input position the machine
    // visits each program instruction at most once.
    if ((input.length + 1) * this.programSize > maxWork) return undefined;
    // Unanchored search, as Go's `Regexp.MatchString` that govaluate calls.
    return this.re.test(input);
  }
}

function tooLarge(): LangError {
  return { code: 'expr_parse_error', message: 'error parsing regexp: expression too large' };
}

function syntaxError(e: RE2JSException): LangError {
  // Repeats whose own counts are valid but whose nesting multiplies past
  // 1000 (`(a{1000}){1000}`) are refused for their size, so they are
  // reported as a size problem, not as a bad count the author cannot find.
  if (e instanceof RE2JSSyntaxException && e.error === 'invalid repeat count' && isValidRepeat(e.input)) return tooLarge();
  const message = e.message.startsWith('error parsing regexp: ') ? e.message : `error parsing regexp: ${e.message}`;
  return { code: 'expr_parse_error', message };
}

/** `{n}`, `{n,}` or `{n,m}` with counts RE2 accepts on their own. */
function isValidRepeat(text: string | null): boolean {
  const m = /^\{(\d+)(?:(,)(\d*))?\}$/.exec(text ?? '');
  if (!m) return false;
  const min = Number(m[1]);
  const max = m[2] === undefined ? min : m[3] === '' ? -1 : Number(m[3]);
  return min <= MAX_REPEAT && max <= MAX_REPEAT && (max === -1 || max >= min);
}
