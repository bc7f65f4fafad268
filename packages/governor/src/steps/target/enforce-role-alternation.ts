import { pythonStrip } from '@nanobot/schema';
import type { ToolCall, ContentPart, Message, MessageContent } from '@nanobot/schema';
import { hasToolCallsValue, toolCallList } from '../../internal/tool-calls.js';
import { isInstructionRole } from './govern-target.js';
import type { ReportedMessage } from '../../report/govern-report.js';
import { ref } from '../../report/reported-message.js';
import { NO_CACHE, type DerivationCache } from '../derivation-cache.js';
import { defineStep } from '../step.js';

/** Text of the synthetic user turn placed before a leading plain assistant message. */
export const CONVERSATION_CONTINUED = '(conversation continued)';

/**
 * The `(conversation continued)` user turn placed before `turn`: with a cache, one object per
 * turn it opens, so governing the same history again yields the same list.
 */
export function continuedTurnBefore(turn: Message, derive: DerivationCache = NO_CACHE): Message {
  return derive.derive(turn, 'opener', (): Message => ({ role: 'user', content: CONVERSATION_CONTINUED }));
}

/** Options of {@link enforceRoleAlternation}. */
export interface RoleAlternationOptions {
  /**
   * `'reference'` reproduces the reference byte for byte, including its losses (a later
   * same-role message replaces a list-content one, an assistant's text is dropped next to a
   * tool-call turn, a popped tool-call assistant is re-labelled `user` with its `tool_calls`).
   * Default `'fixed'`: the same shape without losing content and without a `user` carrying calls.
   */
  compat?: 'fixed' | 'reference';
}

function asBlocks(content: unknown): ContentPart[] {
  if (Array.isArray(content)) return content as ContentPart[];
  if (typeof content === 'string') return content ? [{ type: 'text', text: content }] : [];
  if (content === null || content === undefined) return [];
  return [{ type: 'text', text: String(content) }];
}

/** Joins two contents without loss: strings as the reference does, anything else as blocks. */
function joinContent(prev: unknown, cur: unknown): MessageContent {
  const p = prev ?? '';
  const c = cur ?? '';
  if (typeof p === 'string' && typeof c === 'string') return pythonStrip(`${p}\n\n${c}`);
  return [...asBlocks(p), ...asBlocks(c)];
}

function mergeSameRole(prev: Message, cur: Message, reference: boolean): Message | null {
  if (prev.role === 'assistant') {
    const curTools = hasToolCallsValue(cur);
    const prevTools = hasToolCallsValue(prev);
    if (reference) {
      if (curTools) return { ...cur };
      if (prevTools) return null;
    } else if (curTools && prevTools) {
      return {
        ...prev,
        content: joinContent(prev.content, cur.content),
        tool_calls: [...toolCallList(prev), ...toolCallList(cur)] as ToolCall[],
      };
    } else if (curTools) {
      return { ...cur, content: joinContent(prev.content, cur.content) };
    } else if (prevTools) {
      return { ...prev, content: joinContent(prev.content, cur.content) };
    }
  }
  const p = prev.content ?? '';
  const c = cur.content ?? '';
  if (typeof p === 'string' && typeof c === 'string') return { ...prev, content: pythonStrip(`${p}\n\n${c}`) };
  if (reference) return { ...cur };
  return { ...prev, content: joinContent(p, c) };
}

/**
 * `prev` and `cur` merged into one turn, or null (reference: dropped). With a cache, the same
 * object for the same pair (fixed mode), so the prompt prefix stays byte-stable.
 */
export function mergeOnce(prev: Message, cur: Message, reference: boolean, derive: DerivationCache = NO_CACHE): Message | null {
  return reference ? mergeSameRole(prev, cur, true) : derive.derive(prev, cur, () => mergeSameRole(prev, cur, false));
}

function isEmptyContent(content: unknown): boolean {
  if (content === null || content === undefined) return true;
  if (typeof content === 'string') return pythonStrip(content).length === 0;
  return Array.isArray(content) && content.length === 0;
}

/**
 * Merges consecutive `user`/`assistant` turns, removes trailing assistant turns and makes the
 * first non-system turn a user turn, as strict providers require (reference
 * `_enforce_role_alternation`). Instructions (`system`, `developer`) and `tool` messages are never merged. Pure: returns
 * the same array when nothing changes, otherwise a new array whose untouched messages are the
 * input objects.
 */
export function enforceRoleAlternation(messages: readonly Message[], options: RoleAlternationOptions = {}): Message[] {
  return enforceRoleAlternationDetailed(messages, options).messages;
}

/** Why {@link enforceRoleAlternationDetailed} removed or added a message. */
export type AlternationReason = 'merged-same-role' | 'trailing-assistant' | 'conversation-continued';

/** What {@link enforceRoleAlternationDetailed} did, by index (input for removed, output for added). */
export interface AlternationResult {
  messages: Message[];
  removed: { index: number; reason: AlternationReason }[];
  added: { index: number; reason: AlternationReason }[];
}

/**
 * {@link enforceRoleAlternation} that also says which messages it merged (each source is
 * removed and the merged turn added), popped as trailing assistant turns, or added as an
 * opener. Linear, for the governor's report on long histories.
 */
export function enforceRoleAlternationDetailed(messages: readonly Message[], options: RoleAlternationOptions = {}, derive: DerivationCache = NO_CACHE): AlternationResult {
  const reference = options.compat === 'reference';
  const same: AlternationResult = { messages: messages as Message[], removed: [], added: [] };
  if (messages.length === 0) return same;
  let changed = false;
  const out: Message[] = [];
  // The output slot of each input message (-1: dropped) and how many inputs each slot holds.
  const slotOf = new Int32Array(messages.length);
  const sizes: number[] = [];
  for (let i = 0; i < messages.length; i++) {
    const msg = messages[i];
    const prev = out[out.length - 1];
    if (prev !== undefined && (msg.role === 'user' || msg.role === 'assistant') && prev.role === msg.role) {
      changed = true;
      const merged = mergeOnce(prev, msg, reference, derive);
      if (merged !== null) {
        out[out.length - 1] = merged;
        slotOf[i] = out.length - 1;
        sizes[out.length - 1]++;
      } else {
        slotOf[i] = -1;
      }
      continue;
    }
    slotOf[i] = out.length;
    out.push(msg);
    sizes.push(1);
  }

  let lastPopped: Message | undefined;
  while (out.length > 0 && out[out.length - 1].role === 'assistant') {
    lastPopped = out.pop();
    changed = true;
  }
  const kept = out.length;
  const removed: AlternationResult['removed'] = [];
  const added: AlternationResult['added'] = [];
  if (changed) {
    for (let i = 0; i < messages.length; i++) {
      const slot = slotOf[i];
      if (slot >= kept) removed.push({ index: i, reason: 'trailing-assistant' });
      else if (slot < 0 || sizes[slot] > 1) removed.push({ index: i, reason: 'merged-same-role' });
    }
    for (let k = 0; k < kept; k++) if (sizes[k] > 1) added.push({ index: k, reason: 'merged-same-role' });
  }
  if (lastPopped !== undefined && out.length > 0 && !out.some((m) => m.role === 'user' || m.role === 'tool')) {
    if (reference || !hasToolCallsValue(lastPopped)) {
      out.push({ ...lastPopped, role: 'user' });
    } else {
      // A user turn may not carry tool calls: keep only the popped turn's words.
      const { tool_calls: _calls, reasoning_content: _r, thinking_blocks: _t, ...rest } = lastPopped;
      out.push({ ...rest, role: 'user', content: isEmptyContent(rest.content) ? CONVERSATION_CONTINUED : rest.content });
    }
    added.push({ index: out.length - 1, reason: 'trailing-assistant' });
  }

  const first = out.findIndex((m) => !isInstructionRole(m.role));
  // The reference leaves a leading tool-call turn alone; Anthropic rejects any non-user first turn.
  if (first >= 0 && out[first].role === 'assistant' && (!reference || !hasToolCallsValue(out[first]))) {
    out.splice(first, 0, continuedTurnBefore(out[first], derive));
    for (const a of added) if (a.index >= first) a.index++;
    added.push({ index: first, reason: 'conversation-continued' });
    changed = true;
  }
  if (!changed) return same;
  added.sort((a, b) => a.index - b.index);
  return { messages: out, removed, added };
}

/** {@link enforceRoleAlternationDetailed} (fixed mode) with the report's entries. */
export function alternationWithEntries(messages: readonly Message[], derive: DerivationCache = NO_CACHE): { messages: Message[]; removed: ReportedMessage[]; added: ReportedMessage[] } {
  const alt = enforceRoleAlternationDetailed(messages, {}, derive);
  return {
    messages: alt.messages,
    removed: alt.removed.map((r) => ref(messages[r.index], r.index, r.reason)),
    added: alt.added.map((a) => ref(alt.messages[a.index], a.index, a.reason)),
  };
}

/**
 * The step for targets with strict role order (Anthropic, `'any'`): same-role turns merged, a
 * user turn first and last (an assistant turn last would be a prefill).
 */
export const enforceRoleAlternationStep = defineStep({
  name: 'enforceRoleAlternation',
  may: ['drop', 'merge', 'insert', 'rewrite'],
  noopOnClean: false,
  keepsClean: false,
  runs: (ctx) => ctx.profile?.roleOrder === 'strict',
  run: (list, ctx) => alternationWithEntries(list, ctx.derive),
});
