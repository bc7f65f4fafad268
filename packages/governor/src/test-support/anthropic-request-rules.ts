// The Anthropic Messages API's rules for a request's `messages`, as its documentation and
// error messages state them, checked on native `MessageParam`s: user turn first, strict
// user/assistant alternation, ends with a user turn (no prefill here), no empty content and no
// empty or whitespace-only text blocks (`text content blocks must contain non-whitespace
// text`), every `tool_use` answered by a `tool_result` in the very next user turn with the
// `tool_result` blocks first (`tool_use ids were found without tool_result blocks immediately
// after`), no `tool_result` without its `tool_use` in the turn before, unique `tool_use` ids,
// thinking and tool_use blocks only in assistant turns.
import type { AnthropicMessageLike } from '../dialects/anthropic/anthropic-types.js';

type Block = { type: string; [key: string]: unknown };

const blank = (text: unknown): boolean => typeof text !== 'string' || text.trim().length === 0;

function textProblems(blocks: readonly Block[], where: string, out: string[]): void {
  blocks.forEach((b, j) => {
    if (b.type === 'text' && blank(b.text)) out.push(`${where} block ${j}: text content blocks must contain non-whitespace text`);
    if (b.type === 'tool_result' && Array.isArray(b.content)) textProblems(b.content as Block[], `${where} block ${j} (tool_result)`, out);
    if (b.type === 'tool_result' && typeof b.content === 'string' && blank(b.content)) out.push(`${where} block ${j}: empty tool_result content`);
  });
}

const ASSISTANT_ONLY = new Set(['thinking', 'redacted_thinking', 'tool_use', 'server_tool_use']);

/** Every rule `messages` breaks (empty list: the API accepts it). */
export function anthropicRequestViolations(messages: readonly AnthropicMessageLike[]): string[] {
  const out: string[] = [];
  if (messages.length === 0) return ['messages: at least one message is required'];
  if (messages[0].role !== 'user') out.push('messages.0: the first message must use the user role');
  if (messages[messages.length - 1].role !== 'user') out.push(`messages.${messages.length - 1}: the request ends with an assistant turn`);
  const uses = new Set<string>();
  let pending: string[] = [];
  messages.forEach((m, i) => {
    const where = `messages.${i}`;
    if (m.role !== 'user' && m.role !== 'assistant') out.push(`${where}: role ${String(m.role)} inside messages`);
    if (i > 0 && messages[i - 1].role === m.role) out.push(`${where}: roles must alternate between user and assistant (two ${m.role} turns)`);
    const blocks: Block[] = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : (m.content as readonly Block[]).slice();
    if (blocks.length === 0) out.push(`${where}: all messages must have non-empty content`);
    textProblems(blocks, where, out);
    if (m.role === 'user') {
      const results = blocks.filter((b) => b.type === 'tool_result');
      const firstOther = blocks.findIndex((b) => b.type !== 'tool_result');
      if (firstOther >= 0 && blocks.slice(firstOther).some((b) => b.type === 'tool_result')) out.push(`${where}: tool_result blocks must come first in the user message`);
      const ids = results.map((b) => String(b.tool_use_id));
      const missing = pending.filter((id) => !ids.includes(id));
      if (missing.length > 0) out.push(`messages.${i - 1}: tool_use ids were found without tool_result blocks immediately after: ${missing.join(', ')}`);
      const seen = new Set<string>();
      for (const id of ids) {
        if (!pending.includes(id)) out.push(`${where}: unexpected tool_use_id found in tool_result blocks: ${id}`);
        if (seen.has(id)) out.push(`${where}: two tool_result blocks for ${id}`);
        seen.add(id);
      }
      for (const b of blocks) if (ASSISTANT_ONLY.has(b.type)) out.push(`${where}: a ${b.type} block in a user turn`);
      pending = [];
    } else {
      if (pending.length > 0) out.push(`messages.${i - 1}: tool_use ids were found without tool_result blocks immediately after: ${pending.join(', ')}`);
      pending = [];
      for (const b of blocks) {
        if (b.type === 'tool_result') out.push(`${where}: a tool_result block in an assistant turn`);
        if (b.type !== 'tool_use') continue;
        const id = String(b.id);
        if (typeof b.id !== 'string' || b.id.length === 0) out.push(`${where}: tool_use without an id`);
        if (typeof b.name !== 'string' || b.name.length === 0) out.push(`${where}: tool_use ${id} without a name`);
        if (b.input === null || typeof b.input !== 'object' || Array.isArray(b.input)) out.push(`${where}: tool_use ${id} input must be an object`);
        if (uses.has(id)) out.push(`${where}: tool_use ids must be unique (${id})`);
        uses.add(id);
        pending.push(id);
      }
    }
  });
  if (pending.length > 0) out.push(`messages.${messages.length - 1}: tool_use ids were found without tool_result blocks immediately after: ${pending.join(', ')}`);
  return out;
}
