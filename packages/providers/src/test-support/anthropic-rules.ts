// The Messages API's rules for a request body, as Anthropic's documentation and error messages
// state them, for a checking wire server: user turn first, strict alternation, no empty
// content or whitespace-only text, every tool_use answered by tool_result blocks first in the
// next user turn; and for prompt caching (docs "Prompt caching"): at most 4 blocks with
// `cache_control` across tools, system and messages; not on thinking or redacted_thinking
// blocks (their params have no such field: "Extra inputs are not permitted"); not on empty
// text blocks ("cache_control cannot be set for empty text blocks"). A prefix shorter than the
// model's minimum cacheable length is not an error (it is just not cached), so it is not checked.
import type { Handler } from './wire-server.js';
import { json } from './wire-server.js';

type Rec = Record<string, unknown>;
const isRec = (v: unknown): v is Rec => typeof v === 'object' && v !== null && !Array.isArray(v);
const blank = (s: unknown): boolean => typeof s !== 'string' || s.trim() === '';

/** Where each `cache_control` of a body sits, as paths like `tools.1`, `system.0`, `messages.3.content.0`. */
export function cacheControlPaths(body: Rec): string[] {
  const out: string[] = [];
  const walk = (list: unknown, path: string): void => {
    if (!Array.isArray(list)) return;
    list.forEach((b, i) => {
      if (!isRec(b)) return;
      if (b.cache_control !== undefined) out.push(`${path}.${i}`);
      if (b.type === 'tool_result') walk(b.content, `${path}.${i}.content`);
    });
  };
  walk(body.tools, 'tools');
  walk(body.system, 'system');
  if (Array.isArray(body.messages)) body.messages.forEach((m, i) => { if (isRec(m)) walk(m.content, `messages.${i}.content`); });
  return out;
}

function cacheControlProblems(blocks: readonly Rec[], where: string, out: string[]): void {
  blocks.forEach((b, j) => {
    if (b.cache_control !== undefined) {
      const cc = b.cache_control;
      if (!isRec(cc) || cc.type !== 'ephemeral') out.push(`${where}.${j}.cache_control.type: Input should be 'ephemeral'`);
      if (b.type === 'thinking' || b.type === 'redacted_thinking') out.push(`${where}.${j}.${b.type}.cache_control: Extra inputs are not permitted`);
      if (b.type === 'text' && blank(b.text)) out.push(`${where}.${j}.text: cache_control cannot be set for empty text blocks`);
    }
    if (b.type === 'tool_result' && Array.isArray(b.content)) cacheControlProblems(b.content.filter(isRec), `${where}.${j}.content`, out);
  });
}

/** Every rule `body` breaks (empty: the API would accept it). */
export function anthropicBodyViolations(body: Rec): string[] {
  const out: string[] = [];
  if (typeof body.model !== 'string') out.push('model: Field required');
  if (typeof body.max_tokens !== 'number') out.push('max_tokens: Field required');
  const messages = body.messages;
  if (!Array.isArray(messages) || messages.length === 0) return [...out, 'messages: at least one message is required'];
  if (body.system !== undefined) {
    if (!Array.isArray(body.system)) out.push('system: Input should be a valid list');
    else {
      body.system.forEach((b: unknown, j) => {
        if (!isRec(b) || b.type !== 'text' || blank(b.text)) out.push(`system.${j}: text content blocks must contain non-whitespace text`);
      });
      cacheControlProblems(body.system.filter(isRec), 'system', out);
    }
  }
  if (Array.isArray(body.tools)) {
    body.tools.forEach((t: unknown, j) => {
      if (!isRec(t) || typeof t.name !== 'string' || !isRec(t.input_schema)) out.push(`tools.${j}: name and input_schema are required`);
    });
    cacheControlProblems(body.tools.filter(isRec), 'tools', out);
  }
  let pending = new Set<string>();
  messages.forEach((m: unknown, i) => {
    if (!isRec(m) || (m.role !== 'user' && m.role !== 'assistant')) return void out.push(`messages.${i}.role: Input should be 'user' or 'assistant'`);
    if (i === 0 && m.role !== 'user') out.push('messages.0: the first message must use the user role');
    if (i > 0 && isRec(messages[i - 1]) && (messages[i - 1] as Rec).role === m.role) out.push(`messages.${i}: roles must alternate between "user" and "assistant"`);
    const blocks = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : Array.isArray(m.content) ? m.content.filter(isRec) : [];
    if (blocks.length === 0) return void out.push(`messages.${i}: all messages must have non-empty content`);
    const uses = new Set<string>();
    let seenOther = false;
    for (const b of blocks) {
      if (b.type === 'text' && blank(b.text)) out.push(`messages.${i}: text content blocks must contain non-whitespace text`);
      if ((b.type === 'thinking' || b.type === 'redacted_thinking' || b.type === 'tool_use') && m.role !== 'assistant') out.push(`messages.${i}: ${String(b.type)} blocks are only allowed in assistant messages`);
      if (b.type === 'tool_use') uses.add(String(b.id));
      if (b.type === 'tool_result') {
        if (m.role !== 'user') out.push(`messages.${i}: tool_result blocks are only allowed in user messages`);
        if (!pending.delete(String(b.tool_use_id))) out.push(`messages.${i}.content: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${String(b.tool_use_id)}`);
        if (seenOther) out.push(`messages.${i}: tool_result blocks must come first in the user message`);
      } else seenOther = true;
    }
    if (pending.size > 0) out.push(`messages.${i}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${[...pending].join(', ')}`);
    pending = uses;
    cacheControlProblems(blocks, `messages.${i}.content`, out);
  });
  if (messages.length > 0 && isRec(messages[messages.length - 1]) && (messages[messages.length - 1] as Rec).role !== 'user' && pending.size > 0) {
    out.push('the request ends with unanswered tool_use blocks');
  }
  const found = cacheControlPaths(body).length;
  if (found > 4) out.push(`A maximum of 4 blocks with cache_control may be provided. Found ${found}.`);
  return out;
}

/**
 * A handler that checks the body against {@link anthropicBodyViolations} and answers the API's
 * 400 `invalid_request_error` for the first breach, else `reply` (a Messages API JSON body).
 */
export function replyCheckedAnthropic(reply: Rec): Handler {
  return (req, res) => {
    const problems = isRec(req.body) ? anthropicBodyViolations(req.body) : ['body must be a JSON object'];
    if (problems.length > 0) return json(res, 400, { type: 'error', error: { type: 'invalid_request_error', message: problems[0] } });
    json(res, 200, reply);
  };
}
