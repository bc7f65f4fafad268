// Empty content the governed copy must not carry for any target: an assistant turn with no
// words and no calls (aborted, reasoning-only), whitespace-only text next to tool calls, empty
// user turns, and whitespace-only text blocks in any list. OpenAI rejects content-less assistant
// messages; Anthropic rejects empty and whitespace-only text blocks. The dialects run it on the
// model copy before converting back, then restore role alternation.
import type { Message } from '@nanobot/schema';
import type { ReportedMessage } from '../govern-report.js';
import { hasToolCallsValue } from './tool-calls.js';

/** Text that stands in for a newest user turn that has no words (it must be sent). */
export const EMPTY_USER_TURN = '(empty)';

const isBlank = (text: string): boolean => text.trim().length === 0;

function isBlankTextPart(part: unknown): boolean {
  if (part === null || typeof part !== 'object') return false;
  const p = part as { type?: unknown; text?: unknown };
  return p.type === 'text' && (typeof p.text !== 'string' || isBlank(p.text));
}

/** Content without blank text; `null` when nothing is left. Same value when nothing changed. */
function tidyContent(content: unknown): unknown {
  if (typeof content === 'string') return isBlank(content) ? null : content;
  if (!Array.isArray(content)) return content === undefined ? null : content;
  if (!content.some(isBlankTextPart)) return content.length === 0 ? null : content;
  const kept = content.filter((p) => !isBlankTextPart(p));
  return kept.length === 0 ? null : kept;
}

function preview(msg: Message, index: number): ReportedMessage {
  const out: ReportedMessage = { index, role: String(msg.role) };
  if (typeof msg.content === 'string') out.preview = msg.content.slice(0, 80);
  return out;
}

/** What {@link tidyEmptyContent} did. */
export interface TidyResult {
  messages: Message[];
  removed: ReportedMessage[];
  added: ReportedMessage[];
}

/**
 * Drops content-less assistant turns without calls and empty user turns (the newest user turn
 * is kept, as {@link EMPTY_USER_TURN}), clears whitespace-only text next to tool calls, and
 * removes blank text blocks from lists. Pure; returns the same array when nothing changed.
 */
export function tidyEmptyContent(messages: readonly Message[]): TidyResult {
  let lastUser = -1;
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i].role === 'user') { lastUser = i; break; }
  let out: Message[] | null = null;
  const removed: ReportedMessage[] = [];
  const added: ReportedMessage[] = [];
  for (let i = 0; i < messages.length; i++) {
    const msg = messages[i];
    let next: Message | null = msg;
    if (msg.role === 'assistant' || msg.role === 'user' || msg.role === 'tool') {
      const content = tidyContent(msg.content);
      if (content !== msg.content && !(content === null && msg.content === null)) {
        if (content !== null) next = { ...msg, content: content as Message['content'] };
        else if (msg.role === 'assistant') next = hasToolCallsValue(msg) ? { ...msg, content: null } : null;
        else if (msg.role === 'user') next = i === lastUser ? { ...msg, content: EMPTY_USER_TURN } : null;
      } else if (content === null && msg.role !== 'tool' && !(msg.role === 'assistant' && hasToolCallsValue(msg))) {
        next = msg.role === 'user' && i === lastUser ? { ...msg, content: EMPTY_USER_TURN } : null;
      }
    }
    if (next === msg) {
      out?.push(msg);
      continue;
    }
    out ??= messages.slice(0, i);
    removed.push(preview(msg, i));
    if (next !== null) {
      added.push(preview(next, out.length));
      out.push(next);
    }
  }
  return { messages: out ?? (messages as Message[]), removed, added };
}
