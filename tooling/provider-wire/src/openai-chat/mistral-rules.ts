// Mistral's chat API (OpenAI-shaped) validates messages with mistral-common's validator: tool-call
// ids of exactly 9 alphanumerics, a fixed table of which role may follow which, and a last
// message from the user or a tool (or an assistant message with `prefix: true`).
import type { Json, RuleFinding, WireRule } from '../core/wire-rule.js';
import { chatMessages, toolCallsOf } from './chat-messages.js';

const VALIDATOR = 'https://github.com/mistralai/mistral-common/blob/main/src/mistral_common/protocol/instruct/validator.py';
const ID = /^[a-zA-Z0-9]{9}$/;

/** Which roles may follow which (mistral-common `_validate_message_order`). */
const NEXT: Record<string, ReadonlySet<string>> = {
  system: new Set(['system', 'user', 'assistant']),
  user: new Set(['user', 'assistant', 'system']),
  assistant: new Set(['assistant', 'user', 'tool']),
  tool: new Set(['assistant', 'tool']),
};

function rule(id: string, wording: string, source: string, check: (ms: Json[]) => RuleFinding[]): WireRule {
  return { id: `mistral/${id}`, provider: 'mistral', wire: 'openai-chat', wording, source, check: (body) => check(chatMessages(body)) };
}

/** Mistral's own rules (checked before the common Chat Completions ones, as its validator runs first). */
export const MISTRAL_RULES: readonly WireRule[] = [
  rule(
    'tool-call-id-format',
    'tool-call ids (on calls and on tool messages) are exactly 9 characters of a-z, A-Z, 0-9',
    'https://github.com/anomalyco/opencode/issues/1680',
    (ms) => {
      const out: RuleFinding[] = [];
      ms.forEach((m, i) => {
        toolCallsOf(m).forEach((c, j) => {
          if (!ID.test(String(c.id))) out.push({ path: `messages[${i}].tool_calls[${j}].id`, message: `Tool call id was ${String(c.id)} but must be a-z, A-Z, 0-9, with a length of 9.`, type: 'invalid_function_call', code: '3280' });
        });
        if (m.role === 'tool' && !ID.test(String(m.tool_call_id))) out.push({ path: `messages[${i}].tool_call_id`, message: `Tool call id was ${String(m.tool_call_id)} but must be a-z, A-Z, 0-9, with a length of 9.`, type: 'invalid_function_call', code: '3280' });
      });
      return out;
    },
  ),
  rule(
    'role-order',
    'a role may only follow certain roles: never `user` directly after `tool`, a `tool` only after an assistant or another tool ("Unexpected role \'user\' after role \'tool\'")',
    'https://github.com/BerriAI/litellm/issues/17761',
    (ms) => {
      const out: RuleFinding[] = [];
      ms.forEach((m, i) => {
        if (i === 0) return;
        const prev = String(ms[i - 1].role);
        const allowed = NEXT[prev];
        if (allowed && !allowed.has(String(m.role))) out.push({ path: `messages[${i}].role`, message: `Unexpected role '${String(m.role)}' after role '${prev}'`, type: 'invalid_request_message_order', code: '3230' });
      });
      return out;
    },
  ),
  rule(
    'last-message-role',
    'the last message is from the user or a tool, or an assistant message with `prefix: true`',
    VALIDATOR,
    (ms) => {
      const last = ms[ms.length - 1];
      if (!last || last.role === 'user' || last.role === 'tool' || (last.role === 'assistant' && last.prefix === true)) return [];
      return [{ path: `messages[${ms.length - 1}]`, message: `Expected last role User or Tool (or Assistant with prefix True) for serving but got ${String(last.role)}`, type: 'invalid_request_message_order', code: '3230' }];
    },
  ),
  rule(
    'tool-results-match-calls',
    'the tool messages after an assistant turn answer exactly its calls ("Not the same number of function calls and responses")',
    VALIDATOR,
    (ms) => {
      const out: RuleFinding[] = [];
      ms.forEach((m, i) => {
        const calls = toolCallsOf(m).length;
        if (m.role !== 'assistant' || calls === 0) return;
        let results = 0;
        for (let j = i + 1; j < ms.length && ms[j].role === 'tool'; j++) results++;
        if (results !== calls && (results > 0 || i + 1 < ms.length)) out.push({ path: `messages[${i}]`, message: 'Not the same number of function calls and responses', type: 'invalid_request_message_order', code: '3230' });
      });
      return out;
    },
  ),
];
