// The governed model copy → Responses input items. A message the governor left alone gives
// back every item it stands for (the same objects); a rewritten one is rebuilt from its content
// and calls, keeping each source item it still holds (a call's reasoning item goes right before
// that call; a dropped call or emptied message takes its reasoning with it) and the items of
// unknown type that travelled with it.
import type { Message, ToolCall } from '@nanobot/schema';
import { DialectMemo } from '../../incremental/dialect-memo.js';
import { originOf } from '../dialect-origin.js';
import { isCompactionItem, type ResponsesCallOrigin, type ResponsesPartOrigin, type ResponsesUnitOrigin } from './responses-to-model.js';
import type { ResponsesItemLike } from './responses-types.js';

type Item = ResponsesItemLike & Record<string, unknown>;

function partsBack(content: unknown, assistant: boolean): unknown {
  if (typeof content === 'string' || !Array.isArray(content)) return content ?? '';
  return content.map((p: unknown) => {
    const po = originOf<ResponsesPartOrigin>(p);
    const text = (p as { type?: unknown; text?: unknown }).type === 'text' ? (p as { text?: unknown }).text : undefined;
    if (typeof text !== 'string') return p;
    if (po !== undefined) {
      if (po.text === text) return po.part;
      const src = po.part as Record<string, unknown>;
      return src.type === 'refusal' ? { ...src, refusal: text } : { ...src, text };
    }
    return assistant ? { type: 'output_text', text, annotations: [] } : { type: 'input_text', text };
  });
}

function hasWords(content: unknown): boolean {
  if (typeof content === 'string') return content.trim().length > 0;
  return Array.isArray(content) && content.length > 0 && !content.every(isBlankTextPart);
}

function isBlankTextPart(p: unknown): boolean {
  const part = p as { type?: unknown; text?: unknown } | null;
  return part !== null && typeof part === 'object' && ['text', 'input_text', 'output_text'].includes(String(part.type)) && (typeof part.text !== 'string' || part.text.trim().length === 0);
}

const isAssistantMessageItem = (it: ResponsesItemLike | undefined): boolean => {
  const item = it as Item | undefined;
  return item !== undefined && item.role === 'assistant' && (item.type === 'message' || item.type === undefined || item.type === null);
};

/** A reasoning item without its required `summary` list. */
function needsSummary(it: ResponsesItemLike): boolean {
  const item = it as Item;
  return item.type === 'reasoning' && !Array.isArray(item.summary);
}

function callItems(call: ToolCall, out: ResponsesItemLike[]): void {
  const co = originOf<ResponsesCallOrigin>(call);
  if (co !== undefined && co.call === call) {
    out.push(...co.reasoning, co.item);
    return;
  }
  const fn = call.function ?? { name: '', arguments: '{}' };
  if (co !== undefined) {
    out.push(...co.reasoning, { ...(co.item as Item), call_id: String(call.id), name: String(fn.name), arguments: String(fn.arguments) } as ResponsesItemLike);
    return;
  }
  out.push({ type: 'function_call', call_id: String(call.id), name: String(fn.name), arguments: String(fn.arguments) } as ResponsesItemLike);
}

function messageItem(m: Message, origin: ResponsesUnitOrigin | undefined): ResponsesItemLike {
  const src = origin?.item as Item | undefined;
  // Only the calls changed (stripped, renamed): the message item itself is as it was.
  if (src !== undefined && origin !== undefined && m.content === origin.message.content && m.role === origin.message.role) return src;
  const assistant = m.role === 'assistant';
  const sourceRole = src !== undefined && src.type !== 'function_call_output' ? src.role : undefined;
  const role = m.role === 'system' || m.role === 'developer' ? m.role : assistant ? 'assistant' : 'user';
  let content = partsBack(m.content, assistant);
  // An output message (with id and status) needs parts, not a string.
  if (typeof content === 'string' && src !== undefined && Array.isArray(src.content)) {
    content = [assistant ? { type: 'output_text', text: content, annotations: [] } : { type: 'input_text', text: content }];
  }
  if (src !== undefined && src.type !== 'function_call_output' && sourceRole === role) return { ...src, content } as ResponsesItemLike;
  return { type: 'message', role, content } as ResponsesItemLike;
}

/**
 * Converts the governed model copy back to Responses input items. An assistant message item
 * with only whitespace next to function calls is left out (its reasoning goes before the calls);
 * `blank` lists the model indices where that happened, for the report. With a Governor's
 * dialect memo, a copy governed again resumes after the messages converted last time.
 */
export function modelToResponses(messages: readonly Message[], model: readonly Message[], dialect: DialectMemo = new DialectMemo()): { items: ResponsesItemLike[]; blank: number[] } {
  const rescued = messages === model ? new Map<ResponsesUnitOrigin | null, ResponsesItemLike[]>() : rescue(messages, model);
  // The governor gives back the same objects for the same history: resume after the messages
  // converted last time (each message's items depend on it alone, unless items were rescued).
  const reverseMemo = dialect.weak<Message, ReverseMemo>('responses:reverse');
  const first = messages[0];
  const memo = first !== undefined && rescued.size === 0 ? reverseMemo.get(first) : undefined;
  let p = 0;
  if (memo !== undefined) {
    const n = Math.min(memo.messages.length, messages.length);
    while (p < n && memo.messages[p] === messages[p]) p++;
  }
  const out: ResponsesItemLike[] = memo !== undefined && p > 0 ? memo.items.slice(0, memo.ends[p - 1]) : [];
  const blank: number[] = memo !== undefined ? memo.blank.filter((i) => i < p) : [];
  const ends: number[] = memo !== undefined ? memo.ends.slice(0, p) : [];
  for (let index = p; index < messages.length; index++) {
    const from = out.length;
    convertOne(messages[index], index, rescued, out, blank);
    // The API requires `summary` on a reasoning input item, an empty list when there is none
    // ("Missing required parameter: 'input[N].summary'"); the rest of the item stays as it was.
    for (let k = from; k < out.length; k++) if (needsSummary(out[k])) out[k] = { ...out[k], summary: [] } as ResponsesItemLike;
    ends.push(out.length);
  }
  const rest = rescued.get(null);
  if (rest !== undefined) out.push(...rest);
  if (first !== undefined && rescued.size === 0) reverseMemo.set(first, { messages: messages.slice(), items: out.slice(), ends, blank: blank.slice() });
  return { items: out, blank };
}

interface ReverseMemo {
  messages: readonly Message[];
  items: ResponsesItemLike[];
  /** Number of items after each message. */
  ends: number[];
  blank: number[];
}

function convertOne(m: Message, index: number, rescued: ReadonlyMap<ResponsesUnitOrigin | null, ResponsesItemLike[]>, out: ResponsesItemLike[], blank: number[]): void {
  {
    const origin = originOf<ResponsesUnitOrigin>(m);
    if (origin !== undefined) {
      const carried = rescued.get(origin);
      if (carried !== undefined) out.push(...carried);
    }
    const calls = Array.isArray(m.tool_calls) ? m.tool_calls : [];
    // The server's compaction item goes back as it came, whatever happened to its message.
    if (origin !== undefined && (origin.message === m || isCompactionItem(origin.item))) {
      const skip = calls.length > 0 && isAssistantMessageItem(origin.item) && !hasWords((origin.item as Item).content) ? origin.item : undefined;
      if (skip !== undefined) blank.push(index);
      for (const it of origin.items) if (it !== skip) out.push(it);
      return;
    }
    if (origin !== undefined) out.push(...origin.leading);
    if (m.role === 'tool') {
      const src = origin?.item as Item | undefined;
      const base = src !== undefined && src.type === 'function_call_output' ? src : { type: 'function_call_output' };
      if (origin !== undefined) out.push(...origin.reasoning);
      out.push({ ...base, call_id: String(m.tool_call_id), output: partsBack(m.content, false) } as ResponsesItemLike);
    } else {
      if (origin !== undefined && origin.item !== undefined) out.push(...origin.reasoning);
      if (hasWords(m.content) || m.role !== 'assistant') out.push(messageItem(m, origin));
      else if (calls.length > 0 && m.content !== null && m.content !== undefined) blank.push(index);
      if (m.role === 'assistant') for (const call of calls) callItems(call, out);
    }
    if (origin !== undefined) out.push(...origin.trailing);
  }
}

/**
 * Items of unknown type that travelled with a message the governor dropped in mid-history (an
 * orphan output, an empty assistant message) are not the governor's to drop: they go with the
 * next message sent (`null`: at the end). Those before the first message sent went with the
 * snipped history.
 */
function rescue(messages: readonly Message[], model: readonly Message[]): Map<ResponsesUnitOrigin | null, ResponsesItemLike[]> {
  const out = new Map<ResponsesUnitOrigin | null, ResponsesItemLike[]>();
  const sent = new Set<ResponsesUnitOrigin>();
  for (const m of messages) {
    const o = originOf<ResponsesUnitOrigin>(m);
    if (o !== undefined) sent.add(o);
  }
  if (sent.size === model.length) return out;
  let started = false;
  let pending: ResponsesItemLike[] = [];
  for (const m of model) {
    const o = originOf<ResponsesUnitOrigin>(m);
    if (o === undefined) continue;
    if (sent.has(o)) {
      started = true;
      if (pending.length > 0) out.set(o, pending);
      pending = [];
    } else if (started) {
      pending.push(...o.leading, ...o.trailing);
    }
  }
  if (pending.length > 0) out.set(null, pending);
  return out;
}
