// The one recorder every step's outcome goes through: it numbers passes, keeps the estimates a
// step already made, lists what changed (the step's own entries, else the difference by
// identity) and adds the step's line to the report.
import type { Message } from '@nanobot/schema';
import type { StepOutcome } from '../steps/step.js';
import type { GovernStepName, GovernStepReport, ReportedMessage } from './govern-report.js';
import { DeferredEntries, lineWithDeferredEntries } from './deferred-list.js';
import { ref } from './reported-message.js';

/** What differs between a step's input and output, by identity (steps keep order). */
export function diff(before: readonly Message[], after: readonly Message[]): { removed: ReportedMessage[]; added: ReportedMessage[] } {
  // Only the stretch between the common prefix and suffix can differ.
  let p = 0;
  while (p < before.length && p < after.length && before[p] === after[p]) p++;
  let sb = before.length;
  let sa = after.length;
  while (sb > p && sa > p && before[sb - 1] === after[sa - 1]) {
    sb--;
    sa--;
  }
  return entriesBetween(before, after, p, sb, sa);
}

/**
 * {@link diff} of a step that rewrote slots in place (`after` as long as `before`) and none
 * outside `[from, to)`: only that stretch is read, with the same entries as {@link diff}.
 */
export function diffRewritten(before: readonly Message[], after: readonly Message[], from: number, to: number): { removed: ReportedMessage[]; added: ReportedMessage[] } {
  let p = from;
  while (p < to && before[p] === after[p]) p++;
  let s = to;
  while (s > p && before[s - 1] === after[s - 1]) s--;
  return entriesBetween(before, after, p, s, s);
}

/** The entries of the differing stretch `before[p, sb)` / `after[p, sa)`. */
function entriesBetween(before: readonly Message[], after: readonly Message[], p: number, sb: number, sa: number): { removed: ReportedMessage[]; added: ReportedMessage[] } {
  const midBefore = before.slice(p, sb);
  const midAfter = after.slice(p, sa);
  const inAfter = new Set(midAfter);
  const inBefore = new Set(midBefore);
  const removed: ReportedMessage[] = [];
  const added: ReportedMessage[] = [];
  midBefore.forEach((m, i) => { if (!inAfter.has(m)) removed.push(ref(m, p + i)); });
  midAfter.forEach((m, i) => { if (!inBefore.has(m)) added.push(ref(m, p + i)); });
  return { removed, added };
}

/** The empty list of a step that changed nothing (frozen, so shared by every report). */
const NONE: readonly ReportedMessage[] = Object.freeze([]);

/** Records the steps of one govern call, in order. */
export class StepRecorder {
  /** The report's step lines so far. */
  readonly steps: GovernStepReport[] = [];
  readonly #passes = new Map<GovernStepName, number>();
  readonly #tokens: (list: readonly Message[]) => number | undefined;
  readonly #known: Map<readonly Message[], number>;

  /**
   * `tokens` counts a list (undefined when the call counts nothing); `known` is the call's
   * estimate cache by list identity, where estimates a step made are kept.
   */
  constructor(tokens: (list: readonly Message[]) => number | undefined, known: Map<readonly Message[], number>) {
    this.#tokens = tokens;
    this.#known = known;
  }

  /** Adds the line of `step`, which turned `input` into `outcome.messages`. */
  record(step: GovernStepName, input: readonly Message[], outcome: StepOutcome): void {
    const next = outcome.messages;
    const pass = (this.#passes.get(step) ?? 0) + 1;
    this.#passes.set(step, pass);
    const changed = next !== input;
    if (outcome.tokensBefore !== undefined) this.#known.set(input, outcome.tokensBefore);
    if (outcome.tokensAfter !== undefined) this.#known.set(next, outcome.tokensAfter);
    const toolResults = outcome.toolResults ?? [];
    let line: GovernStepReport;
    if (changed && outcome instanceof DeferredEntries) {
      // A memo's lists stay unbuilt until the report's are read.
      line = lineWithDeferredEntries(step, pass, changed, input.length, next.length, outcome, toolResults);
    } else {
      const own = changed && outcome.removed !== undefined && outcome.added !== undefined;
      const entries = !changed ? { removed: NONE, added: NONE } : own ? { removed: outcome.removed!, added: outcome.added! } : diff(input, next);
      // Frozen: a memo may hand the same lists to the next call's report (see GovernStepReport).
      line = {
        step, pass, changed, messagesBefore: input.length, messagesAfter: next.length, removed: Object.freeze(entries.removed), added: Object.freeze(entries.added), toolResults,
      };
    }
    if (outcome.notes !== undefined && outcome.notes.length > 0) line.notes = outcome.notes;
    const tb = this.#tokens(input);
    if (tb !== undefined) {
      line.tokensBefore = tb;
      line.tokensAfter = changed ? this.#tokens(next)! : tb;
    }
    this.steps.push(line);
  }
}
