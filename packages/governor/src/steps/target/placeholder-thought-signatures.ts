import type { Message, ToolCall } from '@nanobot/schema';
import type { ReportedMessage } from '../../report/govern-report.js';
import { ref } from '../../report/reported-message.js';
import { NO_CACHE, type DerivationCache } from '../derivation-cache.js';
import { defineStep } from '../step.js';

type Extra = { google?: { thought_signature?: unknown } & Record<string, unknown> } & Record<string, unknown>;

/** The thought signature a call carries (`extra_content.google.thought_signature`), if any. */
export function thoughtSignatureOf(call: unknown): string | undefined {
  const extra = (call as { extra_content?: Extra } | null)?.extra_content;
  const sig = extra?.google?.thought_signature;
  return typeof sig === 'string' && sig !== '' ? sig : undefined;
}

function withPlaceholder(msg: Message, placeholder: string): Message {
  const calls = msg.tool_calls as ToolCall[];
  const first = calls[0] as ToolCall & { extra_content?: Extra };
  const extra: Extra = first.extra_content ?? {};
  const signed = { ...first, extra_content: { ...extra, google: { ...(extra.google ?? {}), thought_signature: placeholder } } } as ToolCall;
  return { ...msg, tool_calls: [signed, ...calls.slice(1)] };
}

/** Whether `m` is an assistant step whose first call has no thought signature (in the current turn: it gets the placeholder). */
export function needsPlaceholder(m: Message): boolean {
  return m.role === 'assistant' && Array.isArray(m.tool_calls) && m.tool_calls.length > 0 && thoughtSignatureOf(m.tool_calls[0]) === undefined;
}

/** The derivation key of {@link placeholderSigned} for `placeholder` (a caller signing many messages makes it once). */
export function placeholderKey(placeholder: string): string {
  return `signature-placeholder:${placeholder}`;
}

/**
 * `m` with `placeholder` on its first call; with a cache, one object per message and placeholder.
 * `key` is {@link placeholderKey}`(placeholder)`.
 */
export function placeholderSigned(m: Message, placeholder: string, derive: DerivationCache, key: string = placeholderKey(placeholder)): Message {
  return derive.derive(m, key, () => withPlaceholder(m, placeholder));
}

/**
 * Gives the first call of each assistant step after the last user message, when it has no
 * thought signature, Google's documented placeholder (Gemini 3 rejects a current-turn call
 * without one; a history made by another model has none). Calls that carry a signature, and
 * every earlier turn, are left alone: signatures are never invented or moved. Pure: the same
 * array when nothing changes; the indices of the rewritten messages.
 */
export function placeholderThoughtSignatures(messages: readonly Message[], placeholder: string, derive: DerivationCache = NO_CACHE): { messages: Message[]; changed: number[] } {
  let lastUser = -1;
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i].role === 'user') { lastUser = i; break; }
  let out: Message[] | null = null;
  const changed: number[] = [];
  const key = placeholderKey(placeholder);
  for (let i = lastUser + 1; i < messages.length; i++) {
    const m = messages[i];
    if (!needsPlaceholder(m)) continue;
    out ??= messages.slice();
    out[i] = placeholderSigned(m, placeholder, derive, key);
    changed.push(i);
  }
  return { messages: out ?? (messages as Message[]), changed };
}

/** The step (targets whose profile names a placeholder: Gemini). */
export const placeholderThoughtSignaturesStep = defineStep({
  name: 'placeholderThoughtSignatures',
  may: ['rewrite'],
  noopOnClean: false,
  keepsClean: true,
  runs: (ctx) => ctx.profile?.currentTurnSignaturePlaceholder !== undefined,
  run: (list, ctx) => {
    const { messages, changed } = placeholderThoughtSignatures(list, ctx.profile!.currentTurnSignaturePlaceholder!, ctx.derive);
    if (changed.length === 0) return { messages };
    const removed: ReportedMessage[] = changed.map((i) => ref(list[i], i, 'thought-signature-placeholder'));
    const added: ReportedMessage[] = changed.map((i) => ref(messages[i], i, 'thought-signature-placeholder'));
    return { messages, removed, added };
  },
});
