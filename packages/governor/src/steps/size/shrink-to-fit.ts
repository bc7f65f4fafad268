import { codePointLength, type ContentPart, type Message } from '@nanobot/schema';
import type { ArtifactStore } from '../../offload/artifact-store.js';
import { isInstructionRole } from '../target/govern-target.js';
import { isTextPart } from '../../internal/content.js';
import { messageTokens, promptTokens, type EstimateContext } from '../../sizing/estimate.js';
import { resultId } from '../../internal/tool-calls.js';
import type { ReportedChangeReason, ReportedMessage } from '../../report/govern-report.js';
import { ref } from '../../report/reported-message.js';
import { defineStep, type StepContext } from '../step.js';

/** Options of {@link shrinkToFit}. */
export interface ShrinkToFitOptions extends EstimateContext {
  /** The input budget; `<= 0` turns shrinking off. */
  budget: number;
  /** Where the full text of a shortened message is saved (sync); without one it is only cut. */
  artifactStore?: ArtifactStore | null;
  /** Session bucket for saved texts. */
  sessionKey?: string | null;
  /**
   * A stable name for a non-tool message, used as its file name in the store (tool results use
   * their call id). Called synchronously; must not throw or mutate the message.
   */
  idOf?: (message: Message, index: number) => string;
}

/** One message {@link shrinkToFit} shortened. */
export interface ShrunkMessage {
  /** Index in the list (unchanged: shrinking replaces, never removes). */
  index: number;
  /** Where the full text was saved, when it was. */
  location?: string;
  /** Size of the original text in code points. */
  originalChars: number;
  /** The store threw; the text was only cut. */
  error?: string;
}

/** Result of {@link shrinkToFit}. */
export interface ShrinkToFitResult {
  /** The same array when nothing was shortened. */
  messages: Message[];
  shrunk: ShrunkMessage[];
  /** Prompt estimate of `messages`. */
  tokens: number;
}

// The cut leaves room for this many tokens of estimation slack per attempt.
const SLACK_TOKENS = 16;
const MAX_ATTEMPTS = 16;

function cutMarker(omitted: number, total: number, location: string | undefined): string {
  const saved = location === undefined ? '' : `; the full text is saved at ${location}`;
  return `[… ${omitted} of ${total} characters cut to fit the context window${saved}]`;
}

function headOf(text: string, units: number): string {
  let n = Math.max(0, Math.min(text.length, units));
  const c = text.charCodeAt(n - 1);
  if (n > 0 && c >= 0xd800 && c <= 0xdbff) n--;
  return text.slice(0, n);
}

function tailOf(text: string, units: number): string {
  let n = Math.max(0, Math.min(text.length, units));
  const start = text.length - n;
  const c = text.charCodeAt(start);
  if (n > 0 && c >= 0xdc00 && c <= 0xdfff) n--;
  return n > 0 ? text.slice(text.length - n) : '';
}

interface Source {
  text: string;
  /** Index of the text part in a content list, or -1 for a string content. */
  part: number;
  total: number;
  location?: string;
  error?: string;
  /** Tokens of the message with the marker alone in place of the text. */
  markerTokens: number;
  /** Tokens the full text adds to its message. */
  textTokens: number;
}

function textSource(msg: Message): Pick<Source, 'text' | 'part'> | null {
  const content = msg.content;
  if (typeof content === 'string') return content.length > 0 ? { text: content, part: -1 } : null;
  if (!Array.isArray(content)) return null;
  let best = -1;
  content.forEach((p, k) => {
    if (isTextPart(p) && typeof p.text === 'string' && (best < 0 || p.text.length > ((content[best] as { text: string }).text.length))) best = k;
  });
  return best < 0 ? null : { text: (content[best] as { text: string }).text, part: best };
}

function withText(msg: Message, source: Pick<Source, 'part'>, text: string): Message {
  if (source.part < 0) return { ...msg, content: text };
  const parts = (msg.content as ContentPart[]).slice();
  parts[source.part] = { ...parts[source.part], text };
  return { ...msg, content: parts };
}

/**
 * Shortens the newest oversized content until the prompt fits `budget`, when snipping alone
 * could not (the newest user turn, or what must stay with it, is larger than the room the
 * instructions leave). Picks the newest non-instruction message whose text alone covers the
 * overflow (else the largest), saves its full text through `artifactStore` when there is one,
 * and keeps the head and the tail of the text around a marker saying how much was cut and
 * where the full text is. Cuts leave room for the marker; a text the marker would outgrow is left
 * alone while the copy may still fit, and cut too when it cannot.
 * Instructions are never shortened: when they alone exceed the budget nothing is done.
 * Pure apart from the store writes; shortened messages are new objects.
 */
export function shrinkToFit(messages: readonly Message[], options: ShrinkToFitOptions): ShrinkToFitResult {
  const budget = options.budget;
  let tokens = promptTokens(messages, options);
  const same: ShrinkToFitResult = { messages: messages as Message[], shrunk: [], tokens };
  if (!(budget > 0) || tokens <= budget) return same;
  if (promptTokens(messages.filter((m) => isInstructionRole(m.role)), options) >= budget) return same;

  const original = messages;
  // A fresh list per attempt: estimates are cached by list identity.
  let out = messages.slice();
  const sources = new Map<number, Source>();
  const exhausted = new Set<number>();
  // Texts a cut would not shorten, left as they were while the copy may still fit.
  const skipped = new Map<number, Source>();
  for (let attempt = 0; attempt < MAX_ATTEMPTS && tokens > budget; attempt++) {
    const over = tokens - budget;
    let pick = -1;
    let largest = -1;
    let largestTokens = 0;
    for (let i = out.length - 1; i >= 0; i--) {
      if (isInstructionRole(out[i].role) || exhausted.has(i)) continue;
      const src = sources.get(i) ?? textSource(original[i]);
      if (src === null) continue;
      const t = messageTokens(out[i], options);
      if (pick < 0 && t > over + SLACK_TOKENS * 2) pick = i;
      if (t > largestTokens) {
        largest = i;
        largestTokens = t;
      }
    }
    if (pick < 0) pick = largest;
    if (pick < 0) break;

    let src = sources.get(pick);
    if (src === undefined) {
      const base = textSource(original[pick])!;
      src = { ...base, total: codePointLength(base.text), markerTokens: 0, textTokens: 0 };
      const store = options.artifactStore;
      if (store) {
        const msg = original[pick];
        const id = (msg.role === 'tool' ? resultId(msg) : null) ?? options.idOf?.(msg, pick) ?? `message_${pick}`;
        try {
          src.location = store.persist({ sessionKey: options.sessionKey ?? null, toolCallId: id, body: base.text, extension: 'txt' });
        } catch (error) {
          src.error = error instanceof Error ? error.message : String(error);
        }
      }
      // The marker costs tokens of its own (more with a saved location), which the kept text
      // must leave room for.
      src.markerTokens = messageTokens(withText(original[pick], src, cutMarker(src.total, src.total, src.location)), options);
      src.textTokens = messageTokens(original[pick], options) - messageTokens(withText(original[pick], src, ''), options);
      sources.set(pick, src);
    }
    const current = messageTokens(out[pick], options);
    const keepTokens = Math.max(0, current - over - SLACK_TOKENS - src.markerTokens);
    const keepUnits = src.textTokens > 0 ? Math.floor((src.text.length * keepTokens) / src.textTokens) : 0;
    let keep = Math.min(keepUnits, src.text.length - 1);
    let next = withCut(out, pick, original[pick], src, keep);
    let nextTokens = promptTokens(next, options);
    // Estimates are not linear in the text: a cut that saves nothing is retried with the
    // marker alone, and a message even that does not shorten (a short text next to a long
    // marker) is left as it was and never picked again, so the larger texts get their turn.
    if (nextTokens >= tokens && keep > 0) {
      keep = 0;
      next = withCut(out, pick, original[pick], src, keep);
      nextTokens = promptTokens(next, options);
    }
    if (nextTokens >= tokens) {
      exhausted.add(pick);
      if (out[pick] === original[pick]) {
        sources.delete(pick);
        skipped.set(pick, src);
      }
      continue;
    }
    out = next;
    tokens = nextTokens;
    if (keep <= 0) exhausted.add(pick);
  }
  if (tokens > budget && skipped.size > 0) {
    // It cannot fit anyway: what is sent over budget holds no text left to cut, only the
    // instructions, the structure and markers saying where each full text is.
    for (const [index, src] of skipped) {
      out = withCut(out, index, original[index], src, 0);
      sources.set(index, src);
    }
    tokens = promptTokens(out, options);
  }
  if (sources.size === 0) return same;
  const shrunk: ShrunkMessage[] = [...sources.entries()].sort((a, b) => a[0] - b[0]).map(([index, s]) => {
    const r: ShrunkMessage = { index, originalChars: s.total };
    if (s.location !== undefined) r.location = s.location;
    if (s.error !== undefined) r.error = s.error;
    return r;
  });
  return { messages: out, shrunk, tokens };
}

/** A fresh list with `original` at `index` cut to `keep` UTF-16 units around the marker. */
function withCut(list: readonly Message[], index: number, original: Message, src: Source, keep: number): Message[] {
  // Head and tail survive: a question often follows a pasted log, and a merged turn ends
  // with its newest words.
  const head = headOf(src.text, Math.ceil((keep * 2) / 3));
  const tail = tailOf(src.text, keep - head.length);
  const omitted = src.total - codePointLength(head) - codePointLength(tail);
  const next = list.slice();
  next[index] = withText(original, src, `${head}${head.length > 0 ? '\n\n' : ''}${cutMarker(omitted, src.total, src.location)}${tail.length > 0 ? '\n\n' : ''}${tail}`);
  return next;
}

/**
 * Tokens of the copy and of its instructions (with the tools) when the copy is over the budget,
 * else null: what decides whether the newest turn is shrunk and why a copy cannot fit.
 */
export function overBudget(list: readonly Message[], ctx: StepContext): { tokens: number; instructionTokens: number } | null {
  if (!(ctx.budget > 0)) return null;
  const tokens = promptTokens(list, ctx.estimate);
  if (tokens <= ctx.budget) return null;
  return { tokens, instructionTokens: promptTokens(list.filter((m) => isInstructionRole(m.role)), ctx.estimate) };
}

/** Tokens of the copy and of its instructions (with the tools), whatever the budget. */
export function promptSizes(list: readonly Message[], ctx: StepContext): { tokens: number; instructionTokens: number } {
  return { tokens: promptTokens(list, ctx.estimate), instructionTokens: promptTokens(list.filter((m) => isInstructionRole(m.role)), ctx.estimate) };
}

/**
 * The step (`onOverflow: 'shrink'`, the default): runs only when the copy is still over the
 * budget and the instructions alone are not; the newest oversized content is shortened.
 */
export const shrinkToFitStep = defineStep({
  name: 'shrinkToFit',
  may: ['rewrite'],
  noopOnClean: false,
  keepsClean: true,
  runs: (ctx, list) => {
    if (ctx.onOverflow !== 'shrink') return false;
    const over = overBudget(list, ctx);
    return over !== null && over.instructionTokens < ctx.budget;
  },
  run: (list, ctx) => {
    const inputIndex = new Map<Message, number>();
    ctx.history.forEach((m, i) => inputIndex.set(m, i));
    const shrunk = shrinkToFit(list, {
      ...ctx.estimate, budget: ctx.budget, artifactStore: ctx.options.artifactStore ?? null, sessionKey: ctx.options.sessionKey ?? null,
      idOf: (m, i) => `${String(m.role)}_message_${inputIndex.get(m) ?? `copy_${i}`}`,
    });
    const removed: ReportedMessage[] = [];
    const added: ReportedMessage[] = [];
    for (const s of shrunk.shrunk) {
      const why: ReportedChangeReason = s.location !== undefined ? 'offloaded' : 'truncated';
      removed.push(ref(list[s.index], s.index, why));
      const a = ref(shrunk.messages[s.index], s.index, why);
      a.originalChars = s.originalChars;
      if (s.location !== undefined) a.location = s.location;
      added.push(a);
    }
    const notes = shrunk.shrunk.flatMap((s) => (s.error !== undefined ? [`saving message ${s.index} failed (${s.error}); it was cut instead`] : []));
    return { messages: shrunk.messages, removed, added, tokensAfter: shrunk.tokens, notes };
  },
});
