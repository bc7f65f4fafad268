import { codePointLength, type Message, pythonStr, pythonTruthy } from '@nanobot/schema';
import { compactionMessage, INFLIGHT_COMPACT_TARGET_RATIO, MICROCOMPACT_MIN_CHARS } from '../../constants.js';
import { isolatedTokens, promptTokens, type EstimateContext } from '../../sizing/estimate.js';
import { resultId } from '../../internal/tool-calls.js';
import { NO_CACHE, type DerivationCache } from '../derivation-cache.js';
import { diffRewritten } from '../../report/step-recorder.js';
import { defineStep, type StepContext, type StepOutcome } from '../step.js';
import { compactedNote } from './honest-notes.js';
import { pendingStep } from './shorten-newest-results.js';
import { isCompactable, REFERENCE_RULES, rereadableOf, toolResultRules, type ToolResultRules } from './tool-rules.js';

/** Options of {@link compactInflightOverflow}. */
export interface CompactInflightOptions extends EstimateContext {
  /** The input budget ({@link inputBudget}); `<= 0` turns compaction off. */
  budget: number;
  /** Messages from this index on were appended during the current run ("in flight"). */
  inflightStartIndex?: number;
  /** Ids compacted earlier in this run; they are compacted again so the prefix stays stable. */
  compactedToolCallIds?: ReadonlySet<string>;
  /** Where the compacted copies are kept (the same copy for the same result on the next call). */
  derive?: DerivationCache;
  /** Which tools are compactable and the note's wording (default: the reference's, by name). */
  rules?: ToolResultRules;
  /** Finds results by call id without reading the whole list (the Governor's index; default: a scan). */
  locate?: ToolResultLocator;
}

/**
 * Where the tool results with given call ids sit in the list being compacted: every index `i`
 * with `messages[i].role === 'tool'` and `resultId(messages[i])` among `ids`, ascending, each
 * once. Must answer as {@link scanToolResults} does. Synchronous, pure.
 */
export interface ToolResultLocator {
  resultsOf(ids: Iterable<string>): number[];
}

/** The plain {@link ToolResultLocator}: a scan of `messages`. */
export function scanToolResults(messages: readonly Message[]): ToolResultLocator {
  return {
    resultsOf(ids) {
      const wanted = ids instanceof Set ? ids as ReadonlySet<string> : new Set(ids);
      const out: number[] = [];
      for (let i = 0; i < messages.length; i++) {
        const m = messages[i];
        if (m.role !== 'tool') continue;
        const id = resultId(m);
        if (id !== null && wanted.has(id)) out.push(i);
      }
      return out;
    },
  };
}

/** Result of {@link compactInflightOverflow}. */
export interface CompactInflightResult {
  messages: Message[];
  /** Ids compacted by this call (not previously recorded), oldest first. */
  newlyCompacted: string[];
  /** Ids of previously recorded compactions re-applied by this call. */
  reapplied: string[];
  /** Prompt estimate before and after, when the step had a budget. */
  tokensBefore?: number;
  tokensAfter?: number;
}

function atLeastChars(text: string, n: number): boolean {
  if (text.length < n) return false;
  if (text.length >= 2 * n) return true;
  return codePointLength(text) >= n;
}

/**
 * `msg` with the compaction note as its content (one object per result and note, with a cache):
 * the reference's, or in the default mode one saying the call succeeded and how to see it again.
 */
export function compacted(msg: Message, derive: DerivationCache = NO_CACHE, rules: ToolResultRules = REFERENCE_RULES): Message {
  const name = pythonTruthy(msg.name) ? pythonStr(msg.name) : 'tool';
  const text = rules.reference ? compactionMessage(name)
    : compactedNote(name, typeof msg.content === 'string' ? codePointLength(msg.content) : 0, rereadableOf(rules, msg.name));
  return derive.derive(msg, `compacted:${text}`, () => ({ ...msg, content: text }) as Message);
}

function toolId(msg: Message): string | null {
  const raw = (msg as { tool_call_id?: unknown }).tool_call_id;
  return pythonTruthy(raw) ? pythonStr(raw) : null;
}

/**
 * Compaction's edits of a list: edit `j` replaces slot `slots[j]` by `next[j]`. They only grow,
 * in the order the rule decides them (re-applied results first, then new ones oldest first).
 */
export interface CompactionEdits {
  readonly slots: readonly number[];
  readonly next: readonly Message[];
}

/**
 * How compaction makes and counts the lists it weighs: the input with its first `count` edits.
 * The plain way copies and estimates each; the incremental layer updates one list it owns and
 * counts by per-message differences. Both must give the same lists and the same estimates.
 */
export interface CompactionLists {
  /** Prompt estimate of the input with the first `count` edits. */
  tokens(count: number): number;
  /** The input with the first `count` edits (the input itself for 0): called once, for the output. */
  list(count: number): Message[];
}

/** Makes the {@link CompactionLists} of `messages` and its (growing) `edits`. */
export type CompactionListsOf = (messages: readonly Message[], edits: CompactionEdits, options: EstimateContext) => CompactionLists;

/** The plain {@link CompactionLists}: a copy per count, estimated with `promptTokens`. */
export function copiedLists(messages: readonly Message[], edits: CompactionEdits, options: EstimateContext): CompactionLists {
  const made = new Map<number, Message[]>();
  const list = (count: number): Message[] => {
    if (count === 0) return messages as Message[];
    let out = made.get(count);
    if (out === undefined) {
      out = messages.slice();
      for (let j = 0; j < count; j++) out[edits.slots[j]] = edits.next[j];
      made.set(count, out);
    }
    return out;
  };
  return { list, tokens: (count) => promptTokens(list(count), options) };
}

/**
 * Under context pressure, replaces the oldest in-flight results of compactable tools
 * (`read_file`, `exec`, `grep`, … of at least 500 characters) with a note asking the model to
 * retry more narrowly, until the prompt is at or below 85 % of the budget (reference
 * `compact_inflight_overflow`). The newest candidate is kept when older ones made enough room;
 * in the default mode the results of the step the model waits on are never candidates.
 * Earlier decisions (`compactedToolCallIds`) are re-applied first. Unlike the reference, which
 * re-estimates the whole prompt after each compaction, the estimate is updated from each
 * message's own change and confirmed with exact estimates around the stopping point, so the
 * cost is linear. Pure: the ids it adds are returned, never written into the given set.
 */
export function compactInflightOverflow(messages: readonly Message[], options: CompactInflightOptions): CompactInflightResult {
  return compactInflight(messages, options, copiedLists);
}

/** {@link compactInflightOverflow} weighing its lists through `listsOf` (see {@link CompactionLists}). */
export function compactInflight(messages: readonly Message[], options: CompactInflightOptions, listsOf: CompactionListsOf): CompactInflightResult {
  const budget = options.budget;
  if (!(budget > 0)) return { messages: messages as Message[], newlyCompacted: [], reapplied: [] };
  const recorded = options.compactedToolCallIds ?? new Set<string>();
  const derive = options.derive ?? NO_CACHE;
  const rules = options.rules ?? REFERENCE_RULES;

  const slots: number[] = [];
  const next: Message[] = [];
  const reapplied: string[] = [];
  if (recorded.size > 0) {
    for (const i of (options.locate ?? scanToolResults(messages)).resultsOf(recorded)) {
      const msg = messages[i];
      const id = toolId(msg)!;
      const copy = compacted(msg, derive, rules);
      if (copy.content === msg.content) continue;
      slots.push(i);
      next.push(copy);
      reapplied.push(id);
    }
  }
  const lists = listsOf(messages, { slots, next }, options);
  const e0 = slots.length;
  const before = lists.tokens(e0);
  const result = (k: number, newly: string[], after: number): CompactInflightResult => ({
    messages: lists.list(e0 + k), newlyCompacted: newly, reapplied, tokensBefore: before, tokensAfter: after,
  });
  if (before <= budget) return result(0, [], before);

  // The list the new compactions start from: the input with the earlier decisions re-applied.
  let reappliedAt: Map<number, Message> | null = null;
  const base = (i: number): Message => {
    if (e0 === 0) return messages[i];
    reappliedAt ??= new Map(slots.map((slot, j) => [slot, next[j]]));
    return reappliedAt.get(i) ?? messages[i];
  };
  const target = Math.floor(budget * INFLIGHT_COMPACT_TARGET_RATIO);
  const start = Math.max(0, options.inflightStartIndex ?? 0);
  // Default mode: the results the model waits on are never compacted (issue 29, item 1); they
  // are shortened to fit by `shortenNewestResults` after the older ones went. (A re-applied
  // compaction keeps role and calls: the pending step is the input's.)
  const pending = rules.reference ? null : pendingStep(messages);
  const end = pending === null ? messages.length : pending.call;
  const candidates: number[] = [];
  for (let i = start; i < end; i++) {
    const msg = base(i);
    if (msg.role !== 'tool' || !isCompactable(rules, msg.name)) continue;
    const id = toolId(msg);
    if (id === null || recorded.has(id)) continue;
    if (typeof msg.content !== 'string' || !atLeastChars(msg.content, MICROCOMPACT_MIN_CHARS)) continue;
    candidates.push(i);
  }
  if (candidates.length === 0) return result(0, [], before);
  for (const i of candidates) {
    slots.push(i);
    next.push(compacted(base(i), derive, rules));
  }

  // Reference rule on exact estimates f(k) (k results compacted): the first k >= 1 with
  // f(k) <= target; when that never happens before the newest candidate, the newest one is
  // spared if f(m-1) <= budget.
  const m = candidates.length;
  const decide = (k: number, fk: number): boolean => fk <= target || (k === m - 1 && fk <= budget);

  // Guess k from per-message deltas (the join between messages can shift a count by a token or
  // two), then settle it with exact estimates of the whole prompt.
  let guess = m;
  let approx = before;
  for (let k = 1; k <= m; k++) {
    const i = candidates[k - 1];
    approx += isolatedTokens(next[e0 + k - 1], options) - isolatedTokens(base(i), options);
    if (decide(k, approx)) {
      guess = k;
      break;
    }
  }
  const exact = new Map<number, number>([[0, before]]);
  const f = (k: number): number => {
    let v = exact.get(k);
    if (v === undefined) {
      v = lists.tokens(e0 + k);
      exact.set(k, v);
    }
    return v;
  };
  let k = guess;
  while (k < m && !decide(k, f(k))) k++;
  while (k > 1 && decide(k - 1, f(k - 1))) k--;
  const ids = candidates.slice(0, k).map((i) => toolId(base(i))!);
  return result(k, ids, f(k));
}

/** The step: under pressure, the oldest in-flight compactable results replaced by a note. */
export const compactInflightOverflowStep = defineStep({
  name: 'compactInflightOverflow',
  may: ['rewrite'],
  noopOnClean: false,
  keepsClean: true,
  runs: () => true,
  run: (list, ctx) => compactInflightOutcome(list, ctx),
});

/**
 * The step's outcome on `list`; `locate` finds results by id in `list` (the incremental layer's
 * index; default a scan). Compacted copies keep their call id and name, so `list`'s slots name
 * the report's results.
 */
export function compactInflightOutcome(list: readonly Message[], ctx: StepContext, locate: ToolResultLocator = scanToolResults(list), listsOf: CompactionListsOf = copiedLists): StepOutcome {
  // The estimate context spread last (its keys are not these): on Node 20 (V8 11.3) keys added
  // after a spread made a new hidden class for every object (~0.8 µs a key, ~5 µs here).
  const c = compactInflight(list, {
    budget: ctx.budget, inflightStartIndex: ctx.options.inflightStartIndex ?? 0, compactedToolCallIds: ctx.compactedToolCallIds, derive: ctx.derive, locate, rules: toolResultRules(ctx.options), ...ctx.estimate,
  }, listsOf);
  const reported = [...c.reapplied, ...c.newlyCompacted];
  const at = reported.length === 0 ? [] : locate.resultsOf(new Set(reported));
  const name = reported.length === 0 ? () => 'tool' : namesFrom(list, at);
  // Compaction rewrites results in place, and only results of the ids it reports: the report's
  // entries are read from their stretch of the list, not from a comparison of the whole list.
  const entries = c.messages === list ? {} : diffRewritten(list, c.messages, at[0] ?? 0, (at[at.length - 1] ?? -1) + 1);
  return {
    messages: c.messages,
    ...entries,
    toolResults: [
      ...c.reapplied.map((id) => ({ toolCallId: id, name: name(id), action: 'recompacted' as const })),
      ...c.newlyCompacted.map((id) => ({ toolCallId: id, name: name(id), action: 'compacted' as const })),
    ],
    ...(c.tokensBefore !== undefined ? { tokensBefore: c.tokensBefore } : {}),
    ...(c.tokensAfter !== undefined ? { tokensAfter: c.tokensAfter } : {}),
    newlyCompacted: c.newlyCompacted,
  };
}

/** `toolNames` over the result slots `at` of `list` (ascending): the first result of each id names it. */
function namesFrom(list: readonly Message[], at: readonly number[]): (id: string) => string {
  const names = new Map<string, string>();
  for (const i of at) {
    const m = list[i];
    const id = resultId(m)!;
    if (!names.has(id)) names.set(id, typeof m.name === 'string' ? m.name : 'tool');
  }
  return (id) => names.get(id) ?? 'tool';
}
