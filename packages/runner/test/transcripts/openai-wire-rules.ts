// The OpenAI chat-completions request rules for a conversation, with the API's own 400 wording
// where it has one: tool messages answer the assistant `tool_calls` right before them, every
// call is answered before the next non-tool message, an assistant without calls has content,
// arguments are strings, roles are known.
import type { Message } from '@nanobot/schema';

const ROLES = new Set(['system', 'developer', 'user', 'assistant', 'tool']);

/** Every rule `messages` breaks, as `messages.<i>: <what the API would say>` (empty: accepted). */
export function openAIWireViolations(messages: readonly Message[]): string[] {
  const out: string[] = [];
  let open: string[] = [];
  let openAt = -1;
  let declared = new Set<string>();
  const close = () => {
    if (open.length > 0) out.push(`messages.${openAt}: An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${open.join(', ')}`);
    open = [];
  };
  messages.forEach((m, i) => {
    const at = `messages.${i}`;
    if (!ROLES.has(String(m.role))) out.push(`${at}: invalid role ${String(m.role)}`);
    if (m.role === 'tool') {
      const id = String(m.tool_call_id);
      if (!declared.has(id)) out.push(`${at}: Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.`);
      open = open.filter((x) => x !== id);
      if (!(typeof m.content === 'string' || (Array.isArray(m.content) && m.content.every((p) => p.type === 'text')))) out.push(`${at}: tool content must be a string or text parts`);
      return;
    }
    close();
    declared = new Set();
    if (m.role === 'assistant') {
      const calls = m.tool_calls ?? [];
      for (const c of calls) {
        if (typeof c.function?.arguments !== 'string') out.push(`${at}: tool call arguments must be a string`);
        declared.add(String(c.id));
      }
      open = calls.map((c) => String(c.id));
      openAt = i;
      const empty = m.content === null || m.content === undefined || m.content === '' || (Array.isArray(m.content) && m.content.length === 0);
      if (calls.length === 0 && empty) out.push(`${at}: Invalid value for 'content': expected a string, got null.`);
    } else if (m.content === null || m.content === undefined) {
      out.push(`${at}: Invalid value for 'content': expected a string, got null.`);
    }
  });
  close();
  return out;
}
