// The snip step when the caller's cut plan is re-applied (the usual request of a long,
// over-budget session): the plain step filters the whole history into instructions and the
// rest, finds every legal start and lists every message it cut — linear in the history's
// length on every request. Here, for a history whose instructions all lead (tracked
// incrementally), the plan is checked where it says (its two fingerprints), the start's
// legality by a pass over the kept tail only, and the report's list of cut messages is the one
// made for the same cut before; the cost follows the kept tail, not the history. Anything else
// (no plan, a plan that moved or no longer fits, instructions in mid-history) is left to the
// plain step. Same outcome as the plain step (the property tests compare them).
import type { Message } from '@nanobot/schema';
import { diff } from '../report/step-recorder.js';
import type { ReportedMessage } from '../report/govern-report.js';
import { declareCallIds, resultId } from '../internal/tool-calls.js';
import { promptTokens } from '../sizing/estimate.js';
import { cutPlanAt, messageFingerprint } from '../steps/cut/cut-plan.js';
import type { StepContext, StepOutcome } from '../steps/step.js';
import type { CallClock } from './call-clock.js';
import type { LeadingInstructions } from './leading-instructions.js';
import { ListSnapshot } from './list-snapshot.js';

/** The report's entries of a cut, for the history they were made for (up to the kept tail). */
interface CutEntries {
  list: ListSnapshot;
  leading: number;
  start: number;
  anchor: number;
  removed: readonly ReportedMessage[];
  added: readonly ReportedMessage[];
}

/** Whether `rest[start..]` holds no tool result whose call is before `start` (or missing). */
function legalFrom(messages: readonly Message[], leading: number, start: number): boolean {
  const declared = new Set<string>();
  for (let i = leading + start; i < messages.length; i++) {
    const m = messages[i];
    if (m.role === 'assistant') declareCallIds(m, declared);
    else if (m.role === 'tool') {
      const id = resultId(m);
      if (id !== null && !declared.has(id)) return false;
    }
  }
  return true;
}

/** One Governor's resumed cuts (see the file comment). */
export class SnipMemos {
  readonly #clock: CallClock;
  readonly #instructions: LeadingInstructions;
  readonly #entries = new WeakMap<Message, CutEntries>();

  /** `instructions`: the Governor's instruction positions (shared with other memos). */
  constructor(clock: CallClock, instructions: LeadingInstructions) {
    this.#clock = clock;
    this.#instructions = instructions;
  }

  /** The snip step's outcome when the plan is re-applied as is, else undefined (the plain step decides). */
  run(messages: readonly Message[], ctx: StepContext): StepOutcome | undefined {
    const o = ctx.options;
    const plan = o.cutPlan;
    const budget = ctx.budget;
    // A plan that keeps a server compaction anchor in front of its start is re-applied by the plain step.
    if (!plan || plan.serverAnchor !== undefined || !(budget > 0) || !ctx.fixed || o.cuts === 'tightest' || messages.length === 0) return undefined;
    const leading = this.#instructions.of(messages);
    const m = messages.length - (leading < 0 ? 0 : leading);
    if (leading < 0 || m === 0) return undefined;
    const before = promptTokens(messages, ctx.estimate);
    if (before <= budget) return undefined;
    // The plan's own position (locateCutPlan's first look): fingerprints of its anchor and of the
    // last message it cut.
    const { start, anchor } = plan;
    if (start < 1 || start > m || anchor < 0 || anchor >= m || anchor > start) return undefined;
    const anchorMsg = messages[leading + anchor];
    const [anchorFp, lastFp] = plan.fingerprint.split(':');
    if (anchorMsg.role !== 'user' || messageFingerprint(messages[leading + start - 1], ctx.derive) !== lastFp || messageFingerprint(anchorMsg, ctx.derive) !== anchorFp) return undefined;
    if (!(anchor < start || start < m) || !legalFrom(messages, leading, start)) return undefined;
    const copy = messages.slice(0, leading);
    if (anchor < start) copy.push(anchorMsg);
    for (let i = leading + start; i < messages.length; i++) copy.push(messages[i]);
    const tokens = promptTokens(copy, ctx.estimate);
    if (tokens > budget) return undefined;
    const entries = this.#entriesOf(messages, copy, leading, start, anchor);
    return {
      messages: copy,
      // The report's lists are frozen and shared (GovernStepReport): the same ~all-of-history
      // list for every request that repeats this cut, never a copy per request.
      removed: entries.removed,
      added: entries.added,
      tokensBefore: before,
      tokensAfter: tokens,
      notes: [],
      cut: {
        plan: cutPlanAt(start, anchor, anchorFp, lastFp),
        firstKept: copy[leading] ?? null,
        removedCount: start - (anchor < start ? 1 : 0),
        reused: true,
      },
    };
  }

  /** The report's entries of this cut: made once per cut (a diff), then reused while the history before the tail is the same. */
  #entriesOf(messages: readonly Message[], copy: readonly Message[], leading: number, start: number, anchor: number): { removed: readonly ReportedMessage[]; added: readonly ReportedMessage[] } {
    const head = messages[0];
    const known = this.#entries.get(head);
    if (known !== undefined && known.leading === leading && known.start === start && known.anchor === anchor && known.list.commonPrefix(messages) >= leading + start) {
      known.list.update(messages, Math.min(known.list.length, leading + start));
      return known;
    }
    const { removed, added } = diff(messages, copy);
    const list = new ListSnapshot(this.#clock);
    list.update(messages, 0);
    const made = { list, leading, start, anchor, removed: Object.freeze(removed.map((r) => Object.freeze(r))), added: Object.freeze(added.map((a) => Object.freeze(a))) };
    this.#entries.set(head, made);
    return made;
  }

  /** Drops what is kept for the history starting with `head`. */
  forget(head: Message): void {
    this.#entries.delete(head);
  }
}
