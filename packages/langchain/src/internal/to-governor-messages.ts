// LangChain messages → the governor's OpenAI-shaped messages, one for one: `human` → user,
// `ai` → assistant (its `tool_calls` as OpenAI calls, `args` as a JSON string), `tool` → tool,
// `system` / `developer` → the same role, a `ChatMessage` by its role. Cached per message
// object, so a history governed again hands the governor the same objects (warm caches).
import type { BaseMessage } from '@langchain/core/messages';
import type { ContentPart, Message, ToolCall } from '@nanobot/schema';
import { ValidationError } from '@nanobot/schema';
import type { DialectMemo } from '@nanobot/governor/dialect';
import { withOrigin } from './origin.js';
import { sameMessage } from './same-message.js';

const ROLE_OF: Readonly<Record<string, string>> = Object.freeze({ human: 'user', ai: 'assistant', system: 'system', developer: 'developer', tool: 'tool' });
const CHAT_ROLES: readonly string[] = Object.freeze(['user', 'assistant', 'system', 'developer', 'tool']);

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function typeOf(msg: Record<string, unknown>): unknown {
  if (typeof msg.type === 'string') return msg.type;
  const get = msg._getType;
  return typeof get === 'function' ? (get as () => unknown).call(msg) : undefined;
}

/** A JSON-safe stand-in for a block the governor only carries (images, thinking, tool_use…). */
function describe(block: Record<string, unknown>): ContentPart {
  const out: ContentPart = { type: String(block.type) };
  for (const [key, v] of Object.entries(block)) {
    if (key === 'type' || key === 'data' || key === 'source' || key === 'image_url' || key === 'url') continue;
    if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' || isRecord(v) || Array.isArray(v)) out[key] = v;
  }
  return out;
}

function content(value: unknown, index: number, where: string): Message['content'] {
  if (typeof value === 'string') return value;
  if (!Array.isArray(value)) throw new ValidationError(`${where}: messages[${index}].content must be a string or a list of content blocks`, [index, 'content']);
  return value.map((block: unknown, i) => {
    if (typeof block === 'string') return withOrigin({ type: 'text', text: block }, { part: { type: 'text', text: block }, made: block });
    if (!isRecord(block) || typeof block.type !== 'string') {
      throw new ValidationError(`${where}: messages[${index}].content[${i}] must be a content block with a string type`, [index, 'content', i]);
    }
    if (block.type === 'text' && typeof block.text === 'string') return withOrigin({ type: 'text', text: block.text }, { part: block, made: block.text });
    return withOrigin(describe(block), { part: block, made: undefined });
  });
}

function toolCall(call: Record<string, unknown>): ToolCall {
  const args = call.args === undefined ? '{}' : JSON.stringify(call.args) ?? '{}';
  return withOrigin({ id: typeof call.id === 'string' ? call.id : '', type: 'function', function: { name: String(call.name ?? ''), arguments: args } }, { part: call, made: args });
}

function convertOne(msg: Record<string, unknown>, index: number, where: string): Message {
  const type = typeOf(msg);
  const role = type === 'generic' ? msg.role : ROLE_OF[String(type)];
  if (typeof role !== 'string' || (type === 'generic' && !CHAT_ROLES.includes(role))) {
    throw new ValidationError(`${where}: messages[${index}] has type ${JSON.stringify(type)}${type === 'generic' ? ` and role ${JSON.stringify(msg.role)}` : ''}; expected human, ai, system, developer or tool`, [index, 'type']);
  }
  const c = content(msg.content, index, where);
  const out: Message = { role, content: c };
  if (role === 'tool') {
    if (typeof msg.tool_call_id !== 'string') throw new ValidationError(`${where}: messages[${index}] (tool) needs a string tool_call_id`, [index, 'tool_call_id']);
    out.tool_call_id = msg.tool_call_id;
    out.name = typeof msg.name === 'string' ? msg.name : '';
  }
  if (role === 'assistant' && Array.isArray(msg.tool_calls) && msg.tool_calls.length > 0) {
    out.tool_calls = msg.tool_calls.map((call: unknown, i) => {
      if (!isRecord(call)) throw new ValidationError(`${where}: messages[${index}].tool_calls[${i}] must be an object`, [index, 'tool_calls', i]);
      return toolCall(call);
    });
  }
  return withOrigin(out, { source: msg as unknown as BaseMessage, content: c });
}

/** An earlier call's messages (a snapshot of the list) and the view they were converted to. */
export interface PreviousView {
  source: readonly unknown[];
  view: Message[];
}

/**
 * Converts LangChain messages to the governor's view, one for one, the conversions kept in
 * `memo` (a Governor's, see dialectMemoOf) per message object, so a history governed again hands
 * the governor the same objects. With `previous` (an earlier call's list and view), the leading
 * messages equal to that list's (same objects, or rebuilt ones equal in every field read here,
 * see sameMessage) get its converted messages, up to the first that differs: a history rebuilt
 * from a checkpoint keeps the governor's memos warm. Throws {@link ValidationError} (naming the
 * index) for anything that is not a LangChain message of a supported type (before anything is
 * governed).
 */
export function toGovernorView(messages: readonly unknown[], where: string, memo: DialectMemo, previous?: PreviousView): Message[] {
  if (!Array.isArray(messages)) throw new ValidationError(`${where}: messages must be an array`);
  const cache = memo.weak<object, Message>('langchain:message');
  const views = memo.weak<object, { source: readonly unknown[]; view: Message[] }>('langchain:view');
  const first = messages[0] as unknown;
  // The same history again (or grown at the end) reuses the view of the part already seen.
  const prior = isRecord(first) ? views.get(first) : undefined;
  let from = 0;
  if (prior !== undefined && prior.source.length <= messages.length && samePrefix(prior.source, messages)) {
    if (prior.source.length === messages.length) return prior.view;
    from = prior.source.length;
  }
  const out: Message[] = from > 0 ? prior!.view.slice() : [];
  if (from === 0 && previous !== undefined) {
    // Equal messages, maybe not the same objects: the reused view messages' origins name the
    // earlier ones, which the write-back reads only for fields compared here.
    const n = Math.min(previous.source.length, previous.view.length, messages.length);
    while (from < n) {
      const msg = messages[from] as unknown;
      const before = previous.source[from] as unknown;
      if (!isRecord(msg) || !isRecord(before) || !sameMessage(msg, before)) break;
      out.push(previous.view[from]);
      from++;
    }
    if (from === messages.length && previous.view.length === from) {
      // All of it: the earlier view itself, so the governor's and the write-back's lookups per
      // view carry over too.
      if (isRecord(first)) views.set(first, { source: messages.slice(), view: previous.view });
      return previous.view;
    }
  }
  for (let i = from; i < messages.length; i++) {
    const msg = messages[i] as unknown;
    if (!isRecord(msg)) throw new ValidationError(`${where}: messages[${i}] must be a LangChain message`, [i]);
    let converted = cache.get(msg);
    if (converted === undefined) {
      converted = convertOne(msg, i, where);
      cache.set(msg, converted);
    }
    out.push(converted);
  }
  // A snapshot, not the array: callers may push to their array between calls.
  if (isRecord(first)) views.set(first, { source: messages.slice(), view: out });
  return out;
}

function samePrefix(prefix: readonly unknown[], list: readonly unknown[]): boolean {
  for (let i = prefix.length - 1; i >= 0; i--) if (prefix[i] !== list[i]) return false;
  return true;
}
