// Anthropic `MessageParam`s → the governor's model (OpenAI chat shape). A user turn becomes one
// `tool` message per `tool_result` block, then a `user` message with its other blocks; an
// assistant turn becomes one `assistant` message whose `tool_use` blocks are `tool_calls` and
// whose other blocks (text, thinking with signatures, server tool blocks, …) stay in `content`
// as they are. Each model message carries its origin (see dialect-origin.ts), so whatever the
// governor leaves alone converts back to the very same blocks.
import { ValidationError, type ContentPart, type Message, type JsonSchema, type ToolCall, type ToolDefinition } from '@nanobot/schema';
import { DialectMemo } from '../../incremental/dialect-memo.js';
import { tagOrigin } from '../dialect-origin.js';
import type { AnthropicBlockLike, AnthropicMessageLike, AnthropicSystemLike, AnthropicToolLike } from './anthropic-types.js';

/** Where a model message came from. */
export interface AnthropicPieceOrigin {
  /** The source turn; `null` for the top-level `system` prompt. */
  param: AnthropicMessageLike | null;
  /** How many model messages the turn became, and which one this is. */
  pieces: number;
  piece: number;
  /** The model message as built: identity means the governor left it alone. */
  message: Message;
  /** The source content this message stands for (a string when the turn's content was one). */
  blocks: string | readonly AnthropicBlockLike[];
  /** Position of each source block in the turn, to keep the order when a message is rebuilt. */
  order: ReadonlyMap<object, number>;
}

/** Where a model tool call came from. */
export interface AnthropicCallOrigin {
  block: AnthropicBlockLike & { id?: unknown; name?: unknown; input?: unknown };
  /** The call as built: identity (or equal arguments) means the input is unchanged. */
  call: ToolCall;
}

interface CachedTurn {
  pieces: Message[];
  /** Tool names the turn's results were given (they depend on earlier turns). */
  names: (string | undefined)[];
  /** `[id, name]` of the turn's tool uses, for the results that follow. */
  uses: [string, string][];
}

// With a Governor's dialect memo, model messages are kept per source turn, so a history
// governed again yields the same model objects and the governor's memos stay warm.

interface HistoryMemo {
  system: AnthropicSystemLike | undefined;
  params: readonly AnthropicMessageLike[];
  model: Message[];
  names: Map<string, string>;
}
const SYSTEM_CACHE_LIMIT = 64;

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

function stringifyInput(input: unknown): string {
  try {
    return JSON.stringify(input === undefined ? {} : input) ?? '{}';
  } catch {
    return '{}';
  }
}

function orderOf(blocks: readonly AnthropicBlockLike[]): Map<object, number> {
  const order = new Map<object, number>();
  blocks.forEach((b, i) => order.set(b, i));
  return order;
}

function checkBlocks(content: readonly unknown[], where: string): asserts content is readonly AnthropicBlockLike[] {
  for (let i = 0; i < content.length; i++) {
    const b = content[i];
    if (!isRecord(b) || typeof b.type !== 'string') throw new ValidationError(`${where}.content[${i}] must be a block object with a string type`, [i]);
  }
}

function convertTurn(param: AnthropicMessageLike, index: number, names: ReadonlyMap<string, string>): CachedTurn {
  const where = `governAnthropic: messages[${index}]`;
  if (!isRecord(param)) throw new ValidationError(`${where} must be an object`, [index]);
  const { role, content } = param;
  if (role !== 'user' && role !== 'assistant' && role !== 'system') throw new ValidationError(`${where}.role must be 'user', 'assistant' or 'system', got ${JSON.stringify(role)}`, [index, 'role']);
  if (typeof content !== 'string' && !Array.isArray(content)) throw new ValidationError(`${where}.content must be a string or a list of blocks`, [index, 'content']);
  const pieces: { message: Message; blocks: string | readonly AnthropicBlockLike[] }[] = [];
  const usedNames: (string | undefined)[] = [];
  const uses: [string, string][] = [];
  let order: Map<object, number> = new Map();
  if (typeof content === 'string') {
    pieces.push({ message: { role, content }, blocks: content });
  } else {
    checkBlocks(content, where);
    order = orderOf(content);
    if (role === 'assistant') {
      const others: AnthropicBlockLike[] = [];
      const calls: ToolCall[] = [];
      for (const block of content) {
        if (block.type !== 'tool_use') {
          others.push(block);
          continue;
        }
        const b = block as AnthropicCallOrigin['block'];
        const id = typeof b.id === 'string' ? b.id : String(b.id ?? '');
        const name = typeof b.name === 'string' ? b.name : '';
        const call: ToolCall = { id, type: 'function', function: { name, arguments: stringifyInput(b.input) } };
        calls.push(tagOrigin(call, { block: b, call } satisfies AnthropicCallOrigin));
        uses.push([id, name]);
      }
      const message: Message = { role, content: others.length > 0 ? (others as unknown as ContentPart[]) : null };
      if (calls.length > 0) message.tool_calls = calls;
      pieces.push({ message, blocks: content });
    } else if (role === 'user') {
      const others: AnthropicBlockLike[] = [];
      for (const block of content) {
        if (block.type !== 'tool_result') {
          others.push(block);
          continue;
        }
        const b = block as AnthropicBlockLike & { tool_use_id?: unknown; content?: unknown };
        const id = typeof b.tool_use_id === 'string' ? b.tool_use_id : String(b.tool_use_id ?? '');
        const name = names.get(id);
        usedNames.push(name);
        const message: Message = { role: 'tool', tool_call_id: id, content: resultContent(b.content) };
        if (name !== undefined) message.name = name;
        pieces.push({ message, blocks: [block] });
      }
      if (others.length > 0 || pieces.length === 0) pieces.push({ message: { role, content: others as unknown as ContentPart[] }, blocks: others });
    } else {
      pieces.push({ message: { role, content: content as unknown as ContentPart[] }, blocks: content });
    }
  }
  const out = pieces.map(({ message, blocks }, piece) =>
    tagOrigin(message, { param, pieces: pieces.length, piece, message, blocks, order } satisfies AnthropicPieceOrigin));
  return { pieces: out, names: usedNames, uses };
}

function resultContent(content: unknown): Message['content'] {
  if (content === undefined || content === null) return '';
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content as ContentPart[];
  return String(content);
}

function sameNames(cached: CachedTurn, param: AnthropicMessageLike, names: ReadonlyMap<string, string>): boolean {
  if (cached.names.length === 0) return true;
  let k = 0;
  for (const piece of cached.pieces) {
    if (piece.role !== 'tool') continue;
    if (names.get(String(piece.tool_call_id)) !== cached.names[k++]) return false;
  }
  return k === cached.names.length && param !== null;
}

function systemMessage(system: AnthropicSystemLike, memo: DialectMemo): Message {
  if (typeof system === 'string') {
    return memo.byString('anthropic:system', system, SYSTEM_CACHE_LIMIT, () => {
      const made: Message = { role: 'system', content: system };
      return tagOrigin(made, { param: null, pieces: 1, piece: 0, message: made, blocks: system, order: new Map() } satisfies AnthropicPieceOrigin);
    });
  }
  if (!Array.isArray(system)) throw new ValidationError('governAnthropic: system must be a string or a list of text blocks', ['system']);
  const lists = memo.weak<object, Message>('anthropic:system-list');
  let hit = lists.get(system);
  if (hit === undefined) {
    checkBlocks(system, 'governAnthropic: system');
    hit = { role: 'system', content: system as unknown as ContentPart[] };
    tagOrigin(hit, { param: null, pieces: 1, piece: 0, message: hit, blocks: system, order: orderOf(system) } satisfies AnthropicPieceOrigin);
    lists.set(system, hit);
  }
  return hit;
}

/**
 * The model copy of an Anthropic history: the system prompt (when given) first, then each
 * turn's messages. With a Governor's dialect memo, the same history again (or grown at the end)
 * converts only its new turns and gives the same model objects. Throws {@link ValidationError}
 * for turns that are not Anthropic messages.
 */
export function anthropicToModel(system: AnthropicSystemLike | undefined, messages: readonly AnthropicMessageLike[], dialect: DialectMemo = new DialectMemo()): Message[] {
  if (!Array.isArray(messages)) throw new ValidationError('governAnthropic: messages must be an array', ['messages']);
  const historyMemo = dialect.weak<object, HistoryMemo>('anthropic:history');
  const turnCache = dialect.weak<object, CachedTurn>('anthropic:turn');
  const first = messages[0] as object | undefined;
  const memo = isRecord(first) ? historyMemo.get(first) : undefined;
  let out: Message[];
  let names: Map<string, string>;
  let from = 0;
  if (memo !== undefined && memo.system === system && memo.params.length <= messages.length && samePrefix(memo.params, messages)) {
    if (memo.params.length === messages.length) return memo.model;
    out = memo.model.slice();
    names = new Map(memo.names);
    from = memo.params.length;
  } else {
    out = [];
    if (system !== undefined) out.push(systemMessage(system, dialect));
    names = new Map();
  }
  for (let i = from; i < messages.length; i++) {
    const param = messages[i];
    let turn = isRecord(param) ? turnCache.get(param) : undefined;
    if (turn === undefined || !sameNames(turn, param, names)) {
      turn = convertTurn(param, i, names);
      turnCache.set(param, turn);
    }
    for (const [id, name] of turn.uses) names.set(id, name);
    for (const piece of turn.pieces) out.push(piece);
  }
  if (isRecord(first)) historyMemo.set(first, { system, params: messages.slice(), model: out, names });
  return out;
}

function samePrefix(prefix: readonly unknown[], list: readonly unknown[]): boolean {
  for (let i = 0; i < prefix.length; i++) if (prefix[i] !== list[i]) return false;
  return true;
}

/** Anthropic tool definitions as the governor counts them (their JSON is part of the budget). */
export function anthropicToolsToModel(tools: readonly AnthropicToolLike[] | undefined, dialect: DialectMemo = new DialectMemo()): ToolDefinition[] | undefined {
  if (tools === undefined) return undefined;
  if (!Array.isArray(tools)) throw new ValidationError('governAnthropic: tools must be an array', ['tools']);
  const toolsCache = dialect.weak<object, ToolDefinition[]>('anthropic:tools');
  let hit = toolsCache.get(tools);
  if (hit === undefined) {
    hit = tools.map((t) => ({
      type: 'function' as const,
      function: {
        name: typeof t.name === 'string' ? t.name : String(t.type ?? 'tool'),
        description: typeof t.description === 'string' ? t.description : '',
        parameters: (isRecord(t.input_schema) ? t.input_schema : { type: String(t.type ?? 'object') }) as JsonSchema,
      },
    }));
    toolsCache.set(tools, hit);
  }
  return hit;
}
