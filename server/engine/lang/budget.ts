/**
 * The one budget every policy-language dialect runs under.
 *
 * Policy text is user input and the data it runs on may be hostile (huge
 * lists, cyclic YAML aliases), so every parser and evaluator counts its work
 * and stops with a `*_limit` error instead of hanging a resolution. Each
 * dialect used to count in its own way; they now share this interface so that
 * the dialects still to come (`lang/jinja`, `lang/spiff`, `lang/selector`)
 * plug into the same meter and the same limits surface in the same way.
 *
 * A dialect keeps its own public limits type (`TemplateLimits`,
 * `ExprLimits`: stable API, named in its own terms) and maps it onto a
 * `Budget` per phase; it also keeps its own error wording, supplied as the
 * `OverBudget` function, because policy authors and tests read those messages.
 */

import type { LangFailure } from './result';

/** Limits for one run of one phase (parse or execute). An absent limit is unlimited. */
export interface Budget {
  /** Units of work: nodes built by a parser; nodes visited, calls made and iterations by an evaluator. */
  readonly steps?: number;
  /** Longest output (or string being built), in UTF-16 code units. */
  readonly output?: number;
  /** Deepest nesting of groups, blocks or parentheses. */
  readonly depth?: number;
}

export type BudgetKind = 'steps' | 'output' | 'depth';

/**
 * Builds the dialect's error for an exhausted budget: `limit` is the number
 * that was exceeded, `at` the dialect's own source position for the error.
 */
export type OverBudget = (kind: BudgetKind, limit: number, at: number) => LangFailure;

/**
 * Counts one run against a `Budget` and throws the dialect's `LangFailure`
 * when it is exhausted (the dialect's boundary turns that into a `Result`).
 * One meter per run: it is cheap, and a shared one would let one claim's
 * template eat another's budget.
 */
export class BudgetMeter {
  private stepsTaken = 0;
  private level = 0;
  private readonly maxSteps: number;
  private readonly maxOutput: number;
  private readonly maxDepth: number;

  constructor(
    budget: Budget,
    private readonly over: OverBudget,
  ) {
    this.maxSteps = budget.steps ?? Number.POSITIVE_INFINITY;
    this.maxOutput = budget.output ?? Number.POSITIVE_INFINITY;
    this.maxDepth = budget.depth ?? Number.POSITIVE_INFINITY;
  }

  /** Spends one step. */
  step(at: number): void {
    if (++this.stepsTaken > this.maxSteps) throw this.over('steps', this.maxSteps, at);
  }

  /** Checks a length against the output budget (the output so far, or a string about to be built). */
  output(length: number, at: number): void {
    if (length > this.maxOutput) throw this.over('output', this.maxOutput, at);
  }

  /** Goes one level deeper; pair with `leave`. */
  enter(at: number): void {
    if (++this.level > this.maxDepth) throw this.over('depth', this.maxDepth, at);
  }

  leave(): void {
    this.level--;
  }
}
