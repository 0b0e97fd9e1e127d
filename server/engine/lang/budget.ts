/**
 * The one budget every language the server evaluates runs under.
 *
 * Policy text is user input and the data it runs on may be hostile (huge
 * lists, cyclic YAML aliases), so every parser and evaluator counts its work
 * and stops with a `*_limit` error instead of hanging a resolution. Each
 * dialect used to count in its own way; they now share this interface
 * (govaluate, Go templates, spiff, selectors, DM's Jinja) so that the same
 * limits surface in the same way and a host hands every one of them the
 * same deadline.
 *
 * A dialect keeps its own public limits type (`TemplateLimits`,
 * `ExprLimits`: stable API, named in its own terms) and maps it onto a
 * `Budget` per phase; it also keeps its own error wording, supplied as the
 * `OverBudget` function, because policy authors and tests read those messages.
 */

/**
 * When a run must stop, on the host's clock. The engine reads no clock
 * (server/engine/purity.test.ts), so time comes in from outside: the host
 * passes its clock and the moment the run is out of time.
 */
export interface Deadline {
  /** The host's clock, in milliseconds (`performance.now`, `Date.now`). */
  readonly now: () => number;
  /** The clock's reading at which the run is out of time. */
  readonly at: number;
  /** The whole allowance in milliseconds, for messages. */
  readonly ms: number;
}

/** A deadline `ms` from now on `now`'s clock (the host calls this; the engine only reads what it is given). */
export function deadlineIn(ms: number, now: () => number): Deadline {
  return { now, at: now() + ms, ms };
}

/** Limits for one run of one phase (parse or execute). An absent limit is unlimited. */
export interface Budget {
  /** Units of work: nodes built by a parser; nodes visited, calls made and iterations by an evaluator. */
  readonly steps?: number;
  /** Longest output (or string or list being built), in UTF-16 code units (or items). */
  readonly output?: number;
  /** Deepest nesting of groups, blocks or parentheses. */
  readonly depth?: number;
  /**
   * Characters and items one run may read or build in all, summed over its
   * operations. `output` bounds each value; this bounds how many a run makes,
   * and so its memory and its work on large values.
   */
  readonly volume?: number;
  /** When the run must stop, whatever else it has left. */
  readonly deadline?: Deadline;
}

export type BudgetKind = 'steps' | 'output' | 'depth' | 'volume' | 'time';

/**
 * Builds the dialect's error for an exhausted budget: `limit` is the number
 * that was exceeded (milliseconds for `time`), `at` the dialect's own source
 * position for the error.
 */
export type OverBudget = (kind: BudgetKind, limit: number, at: number) => Error;

/** Steps between two readings of the clock: reading it costs more than a step. */
const CLOCK_EVERY = 256;

/**
 * Counts one run against a `Budget` and throws the dialect's error when it
 * is exhausted (the dialect's boundary turns that into a `Result`).
 * One meter per run: it is cheap, and a shared one would let one claim's
 * template eat another's budget.
 */
export class BudgetMeter {
  private stepsTaken = 0;
  private level = 0;
  private moved = 0;
  private readonly maxSteps: number;
  private readonly maxOutput: number;
  private readonly maxDepth: number;
  private readonly maxVolume: number;
  private readonly deadline: Deadline | undefined;

  constructor(
    budget: Budget,
    private readonly over: OverBudget,
  ) {
    this.maxSteps = budget.steps ?? Number.POSITIVE_INFINITY;
    this.maxOutput = budget.output ?? Number.POSITIVE_INFINITY;
    this.maxDepth = budget.depth ?? Number.POSITIVE_INFINITY;
    this.maxVolume = budget.volume ?? Number.POSITIVE_INFINITY;
    this.deadline = budget.deadline;
  }

  /** Spends one step (and now and then looks at the clock). */
  step(at: number): void {
    if (++this.stepsTaken > this.maxSteps) throw this.over('steps', this.maxSteps, at);
    if (this.deadline !== undefined && this.stepsTaken % CLOCK_EVERY === 0) this.time(at);
  }

  /** Checks a length against the output budget (the output so far, or a string about to be built). */
  output(length: number, at: number): void {
    if (length > this.maxOutput) throw this.over('output', this.maxOutput, at);
  }

  /**
   * Spends `n` characters or items of volume: a string or list about to be
   * built (checked against `output` too) or read. Call it before the work.
   */
  volume(n: number, at: number, built = true): void {
    if (built) this.output(n, at);
    this.moved += n;
    if (this.moved > this.maxVolume) throw this.over('volume', this.maxVolume, at);
    // Large values cost time out of proportion to one step.
    if (this.deadline !== undefined && n >= 4096) this.time(at);
  }

  /** The most a value may still cost: what is left of the volume, and never more than `output` allows one value. */
  room(): number {
    return Math.min(this.maxOutput, this.maxVolume - this.moved);
  }

  /** Fails when the deadline has passed. */
  time(at: number): void {
    const d = this.deadline;
    if (d !== undefined && d.now() > d.at) throw this.over('time', d.ms, at);
  }

  /** Goes one level deeper; pair with `leave`. */
  enter(at: number): void {
    if (++this.level > this.maxDepth) throw this.over('depth', this.maxDepth, at);
  }

  leave(): void {
    this.level--;
  }
}
