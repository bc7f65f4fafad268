// OpenAI Chat Completions: the rules a request's `messages` must keep, with the API's own error
// wording. Every OpenAI-compatible vendor (Azure, Mistral, DeepSeek, OpenRouter, Gemini's
// OpenAI-compatible endpoint) enforces these too; their own rules come on top.
import type { Json, RuleFinding, WireRule } from '../core/wire-rule.js';
import { isRec } from '../core/wire-rule.js';
import { chatMessages, toolCallsOf } from './chat-messages.js';

const CHAT_API = 'https://platform.openai.com/docs/api-reference/chat/create';
const ROLES = new Set(['system', 'developer', 'user', 'assistant', 'tool', 'function']);
const PART_TYPES: Record<string, readonly string[]> = {
  assistant: ['text', 'refusal'],
  user: ['text', 'image_url', 'input_audio', 'file'],
  system: ['text'],
  developer: ['text'],
  tool: ['text'],
};

/**
 * Content-part types a vendor accepts beyond OpenAI's (Mistral's reasoning models take and send
 * `thinking` chunks in assistant content, and documents as `document_url`).
 */
const VENDOR_PART_TYPES: Record<string, Record<string, readonly string[]>> = {
  mistral: { assistant: ['thinking'], user: ['document_url'] },
};

/** What {@link OPENAI_CHAT_RULES} are checked with: the vendor serving the wire (default OpenAI). */
export interface ChatRuleContext {
  vendor?: string;
}

function rule(id: string, wording: string, source: string, check: (ms: Json[], body: Json, ctx: ChatRuleContext) => RuleFinding[]): WireRule<ChatRuleContext | void> {
  return { id: `openai/${id}`, provider: 'openai', wire: 'openai-chat', wording, source, check: (body, ctx) => check(chatMessages(body), body, ctx ?? {}) };
}

/** The Chat Completions rules, in the order the API reports them. */
export const OPENAI_CHAT_RULES: readonly WireRule<ChatRuleContext | void>[] = [
  rule('messages-non-empty', '`messages` holds at least one message', CHAT_API, (ms) => (ms.length === 0 ? [{ path: 'messages', message: "[] is too short - 'messages'" }] : [])),
  rule(
    'known-role',
    "each message's role is one of system, developer, user, assistant, tool",
    CHAT_API,
    (ms) => ms.flatMap((m, i) => (ROLES.has(String(m.role)) ? [] : [{ path: `messages[${i}].role`, message: `Invalid value: '${String(m.role)}'. Supported values are: 'system', 'assistant', 'user', 'function', 'tool', and 'developer'.` }])),
  ),
  rule(
    'content-present',
    'system, user and tool messages carry content; an assistant message carries content or tool_calls',
    CHAT_API,
    (ms) => ms.flatMap((m, i) => {
      const none = m.content === null || m.content === undefined;
      if (m.role === 'assistant' ? none && toolCallsOf(m).length === 0 : none && ROLES.has(String(m.role))) {
        return [{ path: `messages.[${i}].content`, message: "Invalid value for 'content': expected a string, got null." }];
      }
      if (Array.isArray(m.content) && m.content.length === 0) {
        return [{ path: `messages[${i}].content`, message: `Invalid 'messages[${i}].content': empty array. Expected an array with minimum length 1, but got an empty array instead.`, code: 'empty_array' }];
      }
      return [];
    }),
  ),
  rule(
    'content-part-types',
    'content parts of each role are of the types the API knows (assistant: text, refusal; user: text, image_url, input_audio, file; system, developer and tool: text; Mistral adds thinking and document_url)',
    CHAT_API,
    (ms, _body, ctx) => ms.flatMap((m, i) => {
      if (!Array.isArray(m.content)) return [];
      const base = PART_TYPES[String(m.role)];
      if (!base) return [];
      const allowed = [...base, ...(VENDOR_PART_TYPES[ctx.vendor ?? '']?.[String(m.role)] ?? [])];
      return (m.content as unknown[]).flatMap((p, j) => {
        const type = isRec(p) ? String(p.type) : typeof p;
        if (allowed.includes(type)) return [];
        const list = allowed.length === 1 ? `'${allowed[0]}'` : `${allowed.slice(0, -1).map((t) => `'${t}'`).join(', ')}${allowed.length > 2 ? ',' : ''} and '${allowed[allowed.length - 1]}'`;
        return [{ path: `messages[${i}].content[${j}].type`, message: `Invalid value: '${type}'. Supported values are: ${list}.`, code: 'invalid_value' }];
      });
    }),
  ),
  rule(
    'tool-calls-answered',
    "\"An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'\"",
    'https://github.com/BerriAI/litellm/issues/10083',
    (ms) => {
      const out: RuleFinding[] = [];
      ms.forEach((m, i) => {
        const ids = toolCallsOf(m).map((c) => String(c.id));
        if (m.role !== 'assistant' || ids.length === 0) return;
        const answered = new Set<string>();
        for (let j = i + 1; j < ms.length && ms[j].role === 'tool'; j++) answered.add(String(ms[j].tool_call_id));
        const missing = ids.filter((id) => !answered.has(id));
        if (missing.length > 0) out.push({ path: `messages.[${i}].role`, message: `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${missing.join(', ')}` });
      });
      return out;
    },
  ),
  rule(
    'tool-message-has-call',
    "\"messages with role 'tool' must be a response to a preceeding message with 'tool_calls'\"",
    'https://github.com/smarter-sh/smarter/issues/264',
    (ms) => {
      const out: RuleFinding[] = [];
      let open = new Set<string>();
      ms.forEach((m, i) => {
        if (m.role === 'assistant') open = new Set(toolCallsOf(m).map((c) => String(c.id)));
        else if (m.role === 'tool') {
          if (!open.has(String(m.tool_call_id))) out.push({ path: `messages.[${i}].role`, message: "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'." });
        } else open = new Set();
      });
      return out;
    },
  ),
  rule(
    'tool-call-shape',
    'a tool call has an id, `type: "function"` and a function name',
    CHAT_API,
    (ms) => ms.flatMap((m, i) => toolCallsOf(m).flatMap((c, j) => {
      if (typeof c.id === 'string' && c.id !== '' && isRec(c.function) && typeof c.function.name === 'string' && c.function.name !== '') return [];
      return [{ path: `messages[${i}].tool_calls[${j}]`, message: `Missing required parameter: 'messages[${i}].tool_calls[${j}].${typeof c.id === 'string' && c.id !== '' ? 'function.name' : 'id'}'.`, code: 'missing_required_parameter' }];
    })),
  ),
];
