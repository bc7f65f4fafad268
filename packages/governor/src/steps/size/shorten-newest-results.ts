// Issue 29, item 1: shrink before snip, oldest before newest. The results the model is waiting
// for (the last assistant step's) are the one part of the history it cannot do without: cut
// away, the model is asked its task again as if it had never called the tool, and calls it
// again. So in the default mode, before history is cut, the pending step is made to fit beside
// the instructions and the user's message: its results are shortened (head and tail kept, the
// full text saved in the artifact store with a pointer the model can follow). Older history is
// then cut by `snipHistory`, which never cuts into the pending step. Only when the instructions,
// the user's message and the calls leave no room for even a short preview are the results
// reduced to a note saying so plainly; the copy is then reported as not fitting when it does not.
import { codePointLength, pythonStr, pythonTruthy, sliceCodePoints, type Message } from '@nanobot/schema';
import type { ArtifactStore } from '../../offload/artifact-store.js';
import { promptTokens, type EstimateContext } from '../../sizing/estimate.js';
import { resultId } from '../../internal/tool-calls.js';
import type { ReportedToolResult } from '../../report/govern-report.js';
import { isInstructionRole } from '../target/govern-target.js';
import { defineStep, type StepContext, type StepOutcome } from '../step.js';
import { formatCount, SHORTENED_PREFIX, shortenedNote } from './honest-notes.js';

/** The smallest preview worth sending (code points of head and tail together): below it, the note alone. */
export const NEWEST_PREVIEW_MIN_CHARS = 200;

/** Where the step the model waits on sits in a list. */
export interface PendingStep {
  /** Index of the last assistant message, whose tool calls are answered by what follows it. */
  call: number;
  /** Indexes of its results (every message after `call`, all tool results), ascending. */
  results: number[];
  /** Index of the last user message before `call` (-1: none). */
  anchor: number;
}

/**
 * The step the model waits on: the last message is a tool result, and the messages from the
 * last assistant message with tool calls on are that message and tool results only. Null when
 * the list does not end that way (a finished turn, a user message last). Pure, O(tail).
 */
export function pendingStep(list: readonly Message[]): PendingStep | null {
  let i = list.length - 1;
  while (i >= 0 && list[i].role === 'tool') i--;
  if (i === list.length - 1 || i < 0) return null;
  const call = list[i] as { role: unknown; tool_calls?: unknown };
  if (call.role !== 'assistant' || !Array.isArray(call.tool_calls) || call.tool_calls.length === 0) return null;
  let anchor = -1;
  for (let j = i - 1; j >= 0; j--) {
    if (list[j].role === 'user') {
      anchor = j;
      break;
    }
  }
  const results: number[] = [];
  for (let r = i + 1; r < list.length; r++) results.push(r);
  return { call: i, results, anchor };
}

/**
 * The copy that must fit for the pending step to survive: the instructions, the user message
 * the step answers (when there is one) and the step itself. Its results sit at the end, in order.
 */
export function minimalCopy(list: readonly Message[], step: PendingStep, leadingInstructions = -1): Message[] {
  // Instructions known to lead the list (none later) are its first slots: no pass over the list.
  const out = leadingInstructions >= 0 ? list.slice(0, Math.min(leadingInstructions, step.call)) : list.filter((m, i) => i < step.call && isInstructionRole(m.role));
  if (step.anchor >= 0) out.push(list[step.anchor]);
  for (let i = step.call; i < list.length; i++) out.push(list[i]);
  return out;
}

/** A result's text as the step shortens it: what can be cut, the original's size and where it is. */
interface Shortenable {
  /** Index in the list. */
  index: number;
  message: Message;
  name: string;
  /** The text a preview is taken from (the earlier preview, when the result was offloaded already). */
  text: string;
  /** Code points of the original output. */
  total: number;
  /** Where the full output is (saved earlier, or by this step), when it is. */
  location: string | null;
  error?: string;
}

// The note `applyToolResultBudget` puts before the preview of an offloaded result.
const OFFLOADED_NOTE = /^\[output shortened to fit the context: [\d,]+ of ([\d,]+) characters shown; the full output is at (.+?) — read it there in parts for the rest\]\n\n/;

function shortenable(list: readonly Message[], index: number, store: ArtifactStore | null, sessionKey: string | null): Shortenable | null {
  const message = list[index];
  if (typeof message.content !== 'string' || message.content.length === 0) return null;
  const name = pythonTruthy(message.name) ? pythonStr(message.name) : 'tool';
  const earlier = message.content.startsWith(SHORTENED_PREFIX) ? OFFLOADED_NOTE.exec(message.content) : null;
  if (earlier !== null) {
    // Offloaded already: the full output is saved; only the preview after the note is cut.
    return { index, message, name, text: message.content.slice(earlier[0].length), total: Number(earlier[1].replace(/,/g, '')), location: earlier[2] };
  }
  const s: Shortenable = { index, message, name, text: message.content, total: codePointLength(message.content), location: null };
  if (store !== null) {
    const id = resultId(message) ?? `tool_message_${index}`;
    try {
      s.location = store.persist({ sessionKey, toolCallId: id, body: message.content, extension: 'txt' });
    } catch (error) {
      s.error = error instanceof Error ? error.message : String(error);
    }
  }
  return s;
}

/** `s` with at most `keep` code points of its text shown (head and tail around the note); 0: the note alone. */
function shortened(s: Shortenable, keep: number): Message {
  const length = codePointLength(s.text);
  if (keep >= length && s.text === s.message.content) return s.message;
  if (keep <= 0) {
    // A result shorter than the note itself is sent as it is.
    const note = noRoomNote(s);
    return note.length < (s.message.content as string).length ? { ...s.message, content: note } as Message : s.message;
  }
  const shown = Math.min(keep, length);
  const headChars = Math.ceil((shown * 2) / 3);
  const head = sliceCodePoints(s.text, headChars);
  const tailChars = shown - headChars;
  const tail = tailChars > 0 ? s.text.slice(s.text.length - tailUnits(s.text, tailChars)) : '';
  const note = shortenedNote(shown, s.total, s.location);
  const content = `${note}\n\n${head}${tail.length > 0 ? `\n\n[…]\n\n${tail}` : ''}`;
  return content.length < (s.message.content as string).length ? { ...s.message, content } as Message : s.message;
}

/** UTF-16 units of the last `chars` code points of `text`. */
function tailUnits(text: string, chars: number): number {
  let units = 0;
  for (let n = 0; n < chars && units < text.length; n++) {
    const c = text.charCodeAt(text.length - units - 1);
    units += c >= 0xdc00 && c <= 0xdfff && units + 1 < text.length ? 2 : 1;
  }
  return units;
}

/**
 * What the model reads when not even a short preview fits: what happened, plainly (never as a
 * failed call), and where the output is.
 */
export function noRoomNote(s: { name: string; total: number; location: string | null }): string {
  const where = s.location !== null
    ? `the full output is at ${s.location} — read it there in parts`
    : `it was not kept — call ${s.name} again with a narrower query or range for what you need`;
  return `[${s.name} ran; its output (${formatCount(s.total)} characters) is not shown: this request has no room for it beside the instructions, the user's message and the calls; ${where}]`;
}

/** Result of {@link shortenNewestResults}. */
export interface ShortenNewestResult {
  /** The same array when nothing was shortened. */
  messages: Message[];
  /** The results shortened, with what the report says of them. */
  changes: ReportedToolResult[];
  /** Code points of each shortened result shown (0: the note alone). */
  kept: number;
  notes: string[];
}

/** Options of {@link shortenNewestResults}. */
export interface ShortenNewestOptions extends EstimateContext {
  budget: number;
  artifactStore?: ArtifactStore | null;
  sessionKey?: string | null;
  /**
   * How many instructions lead `list` when no other comes later, else -1 (the Governor knows it
   * without reading the list). Called at most once; default: the list is filtered by role.
   */
  leadingInstructions?: (() => number) | undefined;
}

/**
 * Shortens the results of the pending step just enough that the instructions, the user's message
 * and the step fit `budget` (history before them is left to `snipHistory`): every result longer
 * than a common length is cut to it (head and tail), the largest length that fits, found by binary
 * search over whole-prompt counts of that small copy. Below {@link NEWEST_PREVIEW_MIN_CHARS} the
 * results become the note of {@link noRoomNote}. Pure apart from the store writes.
 */
export function shortenNewestResults(list: readonly Message[], options: ShortenNewestOptions): ShortenNewestResult {
  const same: ShortenNewestResult = { messages: list as Message[], changes: [], kept: -1, notes: [] };
  const budget = options.budget;
  if (!(budget > 0)) return same;
  const step = pendingStep(list);
  if (step === null || promptTokens(list, options) <= budget) return same;
  const minimal = minimalCopy(list, step, options.leadingInstructions?.() ?? -1);
  if (promptTokens(minimal, options) <= budget) return same;
  const offset = minimal.length - (list.length - step.call);
  const store = options.artifactStore ?? null;
  const sessionKey = options.sessionKey ?? null;
  const parts = step.results.map((i) => shortenable(list, i, store, sessionKey)).filter((s): s is Shortenable => s !== null);
  if (parts.length === 0) return same;
  const copyWith = (keep: number): Message[] => {
    const out = minimal.slice();
    for (const s of parts) out[s.index - step.call + offset] = shortened(s, keep);
    return out;
  };
  const fits = (keep: number): boolean => promptTokens(copyWith(keep), options) <= budget;
  let keep = 0;
  const longest = Math.max(...parts.map((s) => codePointLength(s.text)));
  if (fits(NEWEST_PREVIEW_MIN_CHARS)) {
    // Sizes grow with `keep`: the largest that fits is a binary search away.
    let lo = NEWEST_PREVIEW_MIN_CHARS;
    let hi = longest;
    while (lo < hi) {
      const mid = Math.ceil((lo + hi) / 2);
      if (fits(mid)) lo = mid;
      else hi = mid - 1;
    }
    keep = lo;
  }
  const out = list.slice();
  const changes: ReportedToolResult[] = [];
  const notes: string[] = [];
  for (const s of parts) {
    const next = shortened(s, keep);
    if (next === s.message || next.content === s.message.content) continue;
    out[s.index] = next;
    const change: ReportedToolResult = { toolCallId: resultId(s.message) ?? '', name: s.name, action: s.location !== null ? 'offloaded' : 'truncated', originalChars: s.total };
    if (s.location !== null) change.location = s.location;
    if (s.error !== undefined) {
      change.error = s.error;
      notes.push(`saving the result of ${s.name} failed (${s.error}); it was cut instead`);
    }
    changes.push(change);
  }
  if (changes.length === 0) return same;
  notes.push(keep > 0
    ? `the newest tool results were shortened to ${keep} characters each so the step the model waits on fits; older history is cut first`
    : 'no room for even a short preview of the newest tool results beside the instructions, the user message and the calls: they were replaced by a note saying so');
  return { messages: out, changes, kept: keep, notes };
}

/**
 * The step (default mode, with a budget): the pending step's results shortened before history is
 * cut, so `snipHistory` never has to cut the step the model waits on.
 */
export const shortenNewestResultsStep = defineStep({
  name: 'shortenNewestResults',
  may: ['rewrite'],
  noopOnClean: false,
  keepsClean: true,
  runs: (ctx) => ctx.fixed && ctx.budget > 0,
  run: (list, ctx) => shortenNewestOutcome(list, ctx),
});

/** The step's outcome on `list`; `leadingInstructions` as in {@link ShortenNewestOptions}. */
export function shortenNewestOutcome(list: readonly Message[], ctx: StepContext, leadingInstructions?: () => number): StepOutcome {
  // The estimate context spread last (its keys are not these): on Node 20 (V8 11.3) keys added
  // after a spread made a new hidden class for every object (~0.8 µs a key).
  const r = shortenNewestResults(list, { budget: ctx.budget, artifactStore: ctx.options.artifactStore ?? null, sessionKey: ctx.options.sessionKey ?? null, leadingInstructions, ...ctx.estimate });
  if (r.changes.length === 0) return { messages: r.messages };
  // Not even a short preview fitted: the copy does not hold what the model waits on, so it
  // is reported as not fitting (issue 29: "says so plainly … and in report.fits").
  const withheld = r.kept === 0
    ? { reason: 'no room for even a short preview of the newest tool results beside the instructions, the user message and the calls', messages: r.messages.filter((m, i) => m !== list[i]) }
    : undefined;
  return { messages: r.messages, toolResults: r.changes, notes: r.notes, ...(withheld !== undefined ? { withheld } : {}) };
}
