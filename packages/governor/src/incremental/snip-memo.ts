// The snip step when the caller's cut plan is re-applied (the usual request of a long,
// over-budget session): the plain step filters the whole history into instructions and the
// rest, finds every legal start and lists every message it cut — linear in the history's
// length on every request. Here, for a history whose instructions all lead (tracked
// incrementally), the plan is checked where it says (its two fingerprints), the start's
// legality by a pass over what changed in the kept tail since the last call (the ids the tail
// declared are kept with the cut, rewound to where the history changed: what was appended, or
// a result compaction rewrote), and the report's list of cut messages is the one made
// for the same cut before; the cost follows what changed, not the history (nor the kept tail,
// whose messages a long session's history has long pushed out of the CPU caches). Anything
// else (no plan, a plan that moved or no longer fits, instructions in mid-history) is left to
// the plain step. Same outcome as the plain step (the property tests compare them).
import type { Message } from '@nanobot/schema';
import { diff } from '../report/step-recorder.js';
import type { ReportedMessage } from '../report/govern-report.js';
import { callId, resultId, toolCallList } from '../internal/tool-calls.js';
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
  /**
   * The kept tail `list[leading + start, legalTo)` was found legal, and `declared` holds the call
   * ids its assistant messages declare (0: not known; `declared` is then empty).
   */
  legalTo: number;
  declared: DeclaredIds;
}

/** Call ids a stretch of the kept tail declares, each with the index of its first declaration. */
interface DeclaredIds {
  at: Map<string, number>;
  /** The ids in the order of their first declaration (so the set rewinds to an index). */
  order: string[];
}

/** How far a history's kept tail is known legal, and the ids that part declares. */
interface TailLegality {
  legalTo: number;
  declared: DeclaredIds;
}

function noIds(): DeclaredIds {
  return { at: new Map(), order: [] };
}

/** Forgets the ids first declared at `index` or later: `declared` is then the ids of the tail before `index`. */
function rewindIds(declared: DeclaredIds, index: number): void {
  const { at, order } = declared;
  while (order.length > 0 && at.get(order[order.length - 1])! >= index) at.delete(order.pop()!);
}

/**
 * Whether `messages[from..]` holds no tool result whose call is neither declared there before it
 * nor in `declared` (the ids the kept tail declares before `from`). Adds the ids it meets to
 * `declared`.
 */
function legalFrom(messages: readonly Message[], from: number, declared: DeclaredIds): boolean {
  const { at, order } = declared;
  for (let i = from; i < messages.length; i++) {
    const m = messages[i];
    if (m.role === 'assistant') {
      for (const call of toolCallList(m)) {
        const id = callId(call);
        if (id !== null && !at.has(id)) {
          at.set(id, i);
          order.push(id);
        }
      }
    } else if (m.role === 'tool') {
      const id = resultId(m);
      if (id !== null && !at.has(id)) return false;
    }
  }
  return true;
}

/** One Governor's resumed cuts (see the file comment). */
export class SnipMemos {
  readonly #clock: CallClock;
  readonly #instructions: LeadingInstructions;
  readonly #entries = new WeakMap<Message, CutEntries>();
  /** Tail checks resumed from the last call's (a test checks the resumption is really used). */
  resumedChecks = 0;

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
    if (!(anchor < start || start < m)) return undefined;
    // The entries kept for this very cut, and how far the history still is the one they were made for.
    const known = this.#known(messages, leading, start, anchor);
    const legality = this.#legality(messages, leading + start, known);
    if (legality === null) return undefined;
    const copy = messages.slice(0, leading);
    if (anchor < start) copy.push(anchorMsg);
    for (let i = leading + start; i < messages.length; i++) copy.push(messages[i]);
    const tokens = promptTokens(copy, ctx.estimate);
    if (tokens > budget) return undefined;
    const entries = this.#entriesOf(messages, copy, leading, start, anchor, known, legality);
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

  /**
   * The entries kept for the cut `(leading, start, anchor)` of the history `messages` starts, when
   * the history before its kept tail is still the one they were made for, with the prefix
   * `messages` shares with that history; else null.
   */
  #known(messages: readonly Message[], leading: number, start: number, anchor: number): { entries: CutEntries; prefix: number } | null {
    const entries = this.#entries.get(messages[0]);
    if (entries === undefined || entries.leading !== leading || entries.start !== start || entries.anchor !== anchor) return null;
    const prefix = entries.list.commonPrefix(messages);
    return prefix >= leading + start ? { entries, prefix } : null;
  }

  /**
   * Whether the kept tail `messages[from..]` is legal (see {@link legalFrom}): read from where the
   * last call's check of the same cut left off, or from where the history changed before that
   * (the check's ids rewound to there), else from `from`. The tail's legality and declared ids,
   * or null when it is not legal.
   */
  #legality(messages: readonly Message[], from: number, known: { entries: CutEntries; prefix: number } | null): TailLegality | null {
    const kept = known?.entries;
    // `known.prefix` >= `from`: the tail before it is the one checked last time (same objects).
    const resumed = kept !== undefined && kept.legalTo > 0;
    // Resumed, the kept ids are rewound and grow in place; a tail found illegal then leaves them
    // holding ids past where it was legal, so they are forgotten.
    let declared: DeclaredIds;
    let at = from;
    if (resumed) {
      this.resumedChecks++;
      declared = kept.declared;
      at = Math.min(known!.prefix, kept.legalTo);
      rewindIds(declared, at);
    } else {
      declared = noIds();
    }
    const legal = legalFrom(messages, at, declared);
    if (kept !== undefined && (resumed || !legal)) {
      kept.legalTo = 0;
      kept.declared = noIds();
    }
    return legal ? { legalTo: messages.length, declared } : null;
  }

  /** The report's entries of this cut: made once per cut (a diff), then reused while the history before the tail is the same. */
  #entriesOf(
    messages: readonly Message[],
    copy: readonly Message[],
    leading: number,
    start: number,
    anchor: number,
    known: { entries: CutEntries; prefix: number } | null,
    legality: TailLegality,
  ): { removed: readonly ReportedMessage[]; added: readonly ReportedMessage[] } {
    if (known !== null) {
      const kept = known.entries;
      // Only the slots past the shared prefix are copied (a grown history: what was appended).
      kept.list.update(messages, known.prefix);
      kept.legalTo = legality.legalTo;
      kept.declared = legality.declared;
      return kept;
    }
    const { removed, added } = diff(messages, copy);
    const list = new ListSnapshot(this.#clock);
    list.update(messages, 0);
    const made: CutEntries = {
      list, leading, start, anchor, removed: Object.freeze(removed.map((r) => Object.freeze(r))), added: Object.freeze(added.map((a) => Object.freeze(a))),
      legalTo: legality.legalTo, declared: legality.declared,
    };
    this.#entries.set(messages[0], made);
    return made;
  }

  /** Drops what is kept for the history starting with `head`. */
  forget(head: Message): void {
    this.#entries.delete(head);
  }
}
