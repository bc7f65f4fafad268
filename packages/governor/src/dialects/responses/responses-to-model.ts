// Responses input items → the governor's model (OpenAI chat shape). Each model message stands
// for a run of items: a `message` item (with the reasoning items before it), or an assistant
// turn (an optional assistant `message`, then its `function_call`s, each with the reasoning
// items before it), or one `function_call_output`. Items of other types travel with the next
// model message (or the last one, at the end), except a `compaction` item (the server's
// compaction, an anchor: see steps/cut/server-compaction-anchor.ts), which is a model message of
// its own: a `user` message whose one content part is the item itself, so the cut counts it and
// keeps it, and it goes back as the very same item. Text parts become model text parts (so they
// are counted); the model messages, calls and parts carry their origin (see dialect-origin.ts),
// so whatever the governor leaves alone converts back to the very same items.
import { ValidationError, type ContentPart, type JsonSchema, type Message, type ToolCall, type ToolDefinition } from '@nanobot/schema';
import { DialectMemo } from '../../incremental/dialect-memo.js';
import { tagOrigin } from '../dialect-origin.js';
import type { ResponsesItemLike, ResponsesToolLike } from './responses-types.js';

type Item = ResponsesItemLike & Record<string, unknown>;

/** Where a model message came from. */
export interface ResponsesUnitOrigin {
  /** Every item the message stands for, in input order. */
  items: readonly ResponsesItemLike[];
  /** The model message as built: identity means the governor left it alone. */
  message: Message;
  /** Items of unknown type before the unit's own items. */
  leading: readonly ResponsesItemLike[];
  /** Reasoning items right before the message item. */
  reasoning: readonly ResponsesItemLike[];
  /** The `message` or `function_call_output` item (none for a calls-only assistant turn). */
  item: ResponsesItemLike | undefined;
  /** Items of unknown type after the unit (only on the last message). */
  trailing: readonly ResponsesItemLike[];
}

/** Where a model tool call came from. */
export interface ResponsesCallOrigin {
  item: ResponsesItemLike;
  reasoning: readonly ResponsesItemLike[];
  call: ToolCall;
}

/** Where a model text part came from. */
export interface ResponsesPartOrigin {
  part: object;
  text: string;
}

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

type Kind = 'message' | 'function_call' | 'function_call_output' | 'reasoning' | 'compaction' | 'other';

function kindOf(item: Item): Kind {
  const t = item.type;
  if (t === 'message' || ((t === undefined || t === null) && 'role' in item)) return 'message';
  if (t === 'function_call' || t === 'function_call_output' || t === 'reasoning' || t === 'compaction') return t;
  return 'other';
}

/** Whether an item is the server's compaction item (it stands for everything before it). */
export function isCompactionItem(item: ResponsesItemLike | undefined): boolean {
  return item !== undefined && item !== null && (item as Item).type === 'compaction';
}

const TEXT_TYPES: readonly string[] = Object.freeze(['input_text', 'output_text', 'text']);

function partsToModel(content: unknown): Message['content'] {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return content === undefined || content === null ? '' : String(content);
  return content.map((p: unknown) => {
    if (!isRecord(p)) return p as ContentPart;
    const text = TEXT_TYPES.includes(String(p.type)) ? p.text : p.type === 'refusal' ? p.refusal : undefined;
    if (typeof text !== 'string') return p as ContentPart;
    return tagOrigin<ContentPart, ResponsesPartOrigin>({ type: 'text', text }, { part: p, text });
  }) as ContentPart[];
}

interface CachedUnit {
  items: readonly Item[];
  message: Message;
  /** Tool name the output was given (it depends on earlier items), and its call id. */
  name: string | undefined;
  toolCallId: string | null;
  trailing: readonly Item[];
  calls: [string, string][];
}

// With a Governor's dialect memo, model messages are kept per unit (keyed by its first item and
// checked item by item), so a history governed again yields the same model objects.

function build(items: readonly Item[], names: ReadonlyMap<string, string>, trailing: readonly Item[]): CachedUnit {
  const leading: Item[] = [];
  let reasoning: Item[] = [];
  let item: Item | undefined;
  let message: Message | undefined;
  const calls: ToolCall[] = [];
  const uses: [string, string][] = [];
  let name: string | undefined;
  let itemReasoning: Item[] = [];
  for (const it of items) {
    const kind = kindOf(it);
    if (kind === 'other') leading.push(it);
    else if (kind === 'reasoning') reasoning.push(it);
    else if (kind === 'message') {
      const role = it.role;
      item = it;
      itemReasoning = reasoning;
      reasoning = [];
      const modelRole = role === 'assistant' ? 'assistant' : role === 'user' ? 'user' : role === 'developer' ? 'developer' : 'system';
      message = { role: modelRole, content: partsToModel(it.content) };
    } else if (kind === 'compaction') {
      // The item itself is the content part: counted as its JSON, never rewritten by a step.
      item = it;
      itemReasoning = reasoning;
      reasoning = [];
      message = { role: 'user', content: [it as unknown as ContentPart] };
    } else if (kind === 'function_call') {
      const id = typeof it.call_id === 'string' ? it.call_id : String(it.call_id ?? '');
      const fnName = typeof it.name === 'string' ? it.name : '';
      const call: ToolCall = { id, type: 'function', function: { name: fnName, arguments: typeof it.arguments === 'string' ? it.arguments : JSON.stringify(it.arguments ?? {}) } };
      calls.push(tagOrigin(call, { item: it, reasoning, call } satisfies ResponsesCallOrigin));
      reasoning = [];
      uses.push([id, fnName]);
      message ??= { role: 'assistant', content: null };
    } else {
      item = it;
      itemReasoning = reasoning;
      reasoning = [];
      const id = typeof it.call_id === 'string' ? it.call_id : String(it.call_id ?? '');
      name = names.get(id);
      message = { role: 'tool', tool_call_id: id, content: partsToModel(it.output) };
      if (name !== undefined) message.name = name;
    }
  }
  if (message === undefined) throw new Error('unreachable: a unit without a message');
  if (calls.length > 0) message.tool_calls = calls;
  tagOrigin(message, { items: [...items, ...trailing], message, leading, reasoning: itemReasoning, item, trailing } satisfies ResponsesUnitOrigin);
  return { items, message, name, toolCallId: message.role === 'tool' ? String(message.tool_call_id) : null, trailing, calls: uses };
}

/** Splits the items into units: `[start, end)` of each, flattened, in order. */
function units(items: readonly Item[], kinds: readonly Kind[], from: number): number[] {
  const out: number[] = [];
  let start = from;
  let i = from;
  const n = items.length;
  while (i < n) {
    const kind = kinds[i];
    if (kind === 'other' || kind === 'reasoning') {
      i++;
      continue;
    }
    const assistantTurn = kind === 'function_call' || (kind === 'message' && items[i].role === 'assistant');
    i++;
    // A compaction item is a unit of its own.
    if (assistantTurn) {
      // Calls (with their reasoning) that follow join this turn.
      for (;;) {
        let j = i;
        while (j < n && kinds[j] === 'reasoning') j++;
        if (j < n && kinds[j] === 'function_call') i = j + 1;
        else break;
      }
    }
    out.push(start, i);
    start = i;
  }
  return out;
}

function sameItems(a: readonly ResponsesItemLike[], b: readonly ResponsesItemLike[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Each item's kind; throws {@link ValidationError} for input that is not a list of items. */
function checkItems(input: readonly unknown[], from: number): Kind[] {
  const kinds = new Array<Kind>(input.length);
  for (let i = from; i < input.length; i++) {
    const it: unknown = input[i];
    if (!isRecord(it)) throw new ValidationError(`governResponses: input[${i}] must be an item object`, [i]);
    const kind = kindOf(it);
    kinds[i] = kind;
    if (kind === 'message') {
      if (it.role !== 'user' && it.role !== 'assistant' && it.role !== 'system' && it.role !== 'developer') {
        throw new ValidationError(`governResponses: input[${i}].role must be user, assistant, system or developer, got ${JSON.stringify(it.role)}`, [i, 'role']);
      }
      if (typeof it.content !== 'string' && !Array.isArray(it.content)) throw new ValidationError(`governResponses: input[${i}].content must be a string or a list of parts`, [i, 'content']);
    }
  }
  return kinds;
}

function cachedAt(unit: CachedUnit | undefined, input: readonly Item[], start: number, end: number, trailing: readonly Item[], names: ReadonlyMap<string, string>): boolean {
  if (unit === undefined || unit.items.length !== end - start) return false;
  for (let j = 0; j < unit.items.length; j++) if (unit.items[j] !== input[start + j]) return false;
  if (unit.toolCallId !== null && names.get(unit.toolCallId) !== unit.name) return false;
  return unit.trailing.length === trailing.length && (trailing.length === 0 || sameItems(unit.trailing, trailing));
}

const NONE: readonly Item[] = [];

/**
 * The model copy of a Responses history (empty for a history of unknown items only). With a
 * Governor's dialect memo, the same history again (or grown at the end) converts only the items
 * from the last unit on and gives the same model objects. Throws {@link ValidationError} for
 * input that is not a list of items.
 */
export function responsesToModel(input: readonly ResponsesItemLike[], dialect: DialectMemo = new DialectMemo()): Message[] {
  if (!Array.isArray(input)) throw new ValidationError('governResponses: input must be an array of input items', ['input']);
  const items = input as readonly Item[];
  const first = items[0] as object | undefined;
  const memo = isRecord(first) ? dialect.weak<object, HistoryMemo>('responses:history').get(first) : undefined;
  if (memo !== undefined && memo.items.length <= items.length && samePrefix(memo.items, items)) {
    if (memo.items.length === items.length) return memo.model;
    return convert(items, memo.lastStart, memo.model.slice(0, -1), new Map(memo.names), dialect);
  }
  return convert(items, 0, [], new Map(), dialect);
}

function convert(items: readonly Item[], from: number, out: Message[], names: Map<string, string>, dialect: DialectMemo): Message[] {
  const unitCache = dialect.weak<object, CachedUnit>('responses:unit');
  const kinds = checkItems(items, from);
  const spans = units(items, kinds, from);
  for (let k = 0; k < spans.length; k += 2) {
    const start = spans[k];
    const end = spans[k + 1];
    const trailing = k === spans.length - 2 && end < items.length ? items.slice(end) : NONE;
    let unit = unitCache.get(items[start]);
    if (!cachedAt(unit, items, start, end, trailing, names)) {
      unit = build(items.slice(start, end), names, trailing);
      unitCache.set(items[start], unit);
    }
    for (const [id, name] of unit!.calls) names.set(id, name);
    out.push(unit!.message);
  }
  if (items.length > 0 && isRecord(items[0])) {
    const lastStart = spans.length > 0 ? spans[spans.length - 2] : from;
    dialect.weak<object, HistoryMemo>('responses:history').set(items[0], { items: items.slice(), model: out, names, lastStart });
  }
  return out;
}

function samePrefix(prefix: readonly unknown[], list: readonly unknown[]): boolean {
  for (let i = 0; i < prefix.length; i++) if (prefix[i] !== list[i]) return false;
  return true;
}

interface HistoryMemo {
  items: readonly Item[];
  model: Message[];
  names: Map<string, string>;
  /** Where the last unit starts: it may grow with the next items, so it is converted again. */
  lastStart: number;
}

/** Responses tools as the governor counts them (their JSON is part of the budget). */
export function responsesToolsToModel(tools: readonly ResponsesToolLike[] | undefined, dialect: DialectMemo = new DialectMemo()): ToolDefinition[] | undefined {
  if (tools === undefined) return undefined;
  if (!Array.isArray(tools)) throw new ValidationError('governResponses: options.tools must be an array', ['tools']);
  const toolsCache = dialect.weak<object, ToolDefinition[]>('responses:tools');
  let hit = toolsCache.get(tools);
  if (hit === undefined) {
    hit = tools.map((t) => ({
      type: 'function' as const,
      function: {
        name: typeof t.name === 'string' ? t.name : String(t.type),
        description: typeof t.description === 'string' ? t.description : '',
        parameters: (isRecord(t.parameters) ? t.parameters : { type: 'object' }) as JsonSchema,
      },
    }));
    toolsCache.set(tools, hit);
  }
  return hit;
}
