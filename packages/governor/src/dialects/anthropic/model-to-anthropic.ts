// The governed model copy → Anthropic `MessageParam`s. Messages the governor left alone give
// back their source blocks (a turn all of whose messages are untouched gives back the source
// turn object itself); rewritten ones are rebuilt from their content and calls, keeping every
// source block they still hold (thinking signatures, cache_control, is_error, images) and the
// source block order.
import type { Message, ToolCall } from '@nanobot/schema';
import { isInstructionRole } from '../../steps/target/govern-target.js';
import { DialectMemo } from '../../incremental/dialect-memo.js';
import { originOf } from '../dialect-origin.js';
import { instructionNoteHeader } from '../../steps/target/legalize-for-target.js';
import type { AnthropicCallOrigin, AnthropicPieceOrigin } from './anthropic-to-model.js';
import type { AnthropicBlockLike, AnthropicMessageLike } from './anthropic-types.js';

interface Part {
  origin: AnthropicPieceOrigin | undefined;
  unchanged: boolean;
  blocks: string | AnthropicBlockLike[] | readonly AnthropicBlockLike[];
}

interface Turn {
  role: 'user' | 'assistant';
  parts: Part[];
}

interface ReverseMemo {
  messages: readonly Message[];
  result: AnthropicMessageLike[];
  /** Index of the first message of each turn of `result`. */
  starts: number[];
}
// Blocks only an assistant turn may carry (a turn the governor relabelled `user` drops them).
const ASSISTANT_ONLY: readonly string[] = Object.freeze(['thinking', 'redacted_thinking', 'tool_use', 'server_tool_use']);

function parseInput(args: string): unknown {
  try {
    const v: unknown = JSON.parse(args);
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? v : {};
  } catch {
    return {};
  }
}

function toolUse(call: ToolCall): AnthropicBlockLike {
  const co = originOf<AnthropicCallOrigin>(call);
  if (co !== undefined && co.call === call) return co.block;
  const fn = call.function ?? { name: '', arguments: '{}' };
  const input = co !== undefined && co.call.function.arguments === fn.arguments ? co.block.input : parseInput(String(fn.arguments ?? '{}'));
  return { ...co?.block, type: 'tool_use', id: String(call.id), name: String(fn.name), input } as AnthropicBlockLike;
}

function contentBlocks(content: unknown): AnthropicBlockLike[] {
  if (typeof content === 'string') return content.length > 0 ? [{ type: 'text', text: content } as AnthropicBlockLike] : [];
  if (Array.isArray(content)) return content as AnthropicBlockLike[];
  return [];
}

/** Source order for rebuilt blocks; new blocks follow the block before them. */
function inSourceOrder(blocks: AnthropicBlockLike[], origin: AnthropicPieceOrigin | undefined, sourceOf: (b: AnthropicBlockLike) => object): AnthropicBlockLike[] {
  if (origin === undefined || origin.order.size === 0) return blocks;
  let last = -1;
  const keyed = blocks.map((b, i) => {
    const at = origin.order.get(sourceOf(b));
    if (at !== undefined) last = at;
    return { b, key: at ?? last + 0.5, i };
  });
  keyed.sort((x, y) => x.key - y.key || x.i - y.i);
  return keyed.map((k) => k.b);
}

function rebuild(m: Message, origin: AnthropicPieceOrigin | undefined): string | AnthropicBlockLike[] {
  if (m.role === 'tool') {
    const source = origin !== undefined && typeof origin.blocks !== 'string' && origin.blocks[0]?.type === 'tool_result' ? origin.blocks[0] : undefined;
    const block: Record<string, unknown> = { ...source, type: 'tool_result', tool_use_id: String(m.tool_call_id) };
    if (typeof m.content === 'string' || Array.isArray(m.content)) block.content = m.content;
    else delete block.content;
    return [block as unknown as AnthropicBlockLike];
  }
  const calls = Array.isArray(m.tool_calls) ? m.tool_calls : [];
  if (typeof m.content === 'string' && calls.length === 0) return m.content;
  const uses = calls.map(toolUse);
  const sourceOf = new Map<AnthropicBlockLike, object>();
  calls.forEach((c, i) => {
    const co = originOf<AnthropicCallOrigin>(c);
    if (co !== undefined) sourceOf.set(uses[i], co.block);
  });
  return inSourceOrder([...contentBlocks(m.content), ...uses], origin, (b) => sourceOf.get(b) ?? b);
}

function asBlocks(blocks: string | readonly AnthropicBlockLike[]): readonly AnthropicBlockLike[] {
  return typeof blocks === 'string' ? (blocks.length > 0 ? [{ type: 'text', text: blocks } as AnthropicBlockLike] : []) : blocks;
}

function finish(turn: Turn): AnthropicMessageLike {
  const first = turn.parts[0];
  const param = first.origin?.param;
  if (
    param !== null && param !== undefined && param.role === turn.role && first.origin!.pieces === turn.parts.length &&
    turn.parts.every((p, i) => p.unchanged && p.origin!.param === param && p.origin!.piece === i)
  ) {
    return param;
  }
  if (turn.parts.length === 1 && typeof first.blocks === 'string') return { role: turn.role, content: first.blocks };
  let blocks = turn.parts.flatMap((p) => asBlocks(p.blocks));
  if (turn.role === 'user') {
    // Anthropic wants the tool_result blocks first in their user turn.
    blocks = [...blocks.filter((b) => b.type === 'tool_result'), ...blocks.filter((b) => b.type !== 'tool_result' && !ASSISTANT_ONLY.includes(b.type))];
  }
  return { role: turn.role, content: blocks };
}

function push(turns: Turn[], role: Turn['role'], part: Part): void {
  const last = turns[turns.length - 1];
  if (last !== undefined && last.role === role) last.parts.push(part);
  else turns.push({ role, parts: [part] });
}

/**
 * Converts the governed model copy back to Anthropic turns (the top-level system prompt is not
 * part of the result: it comes back unchanged). Consecutive messages that map to the same
 * Anthropic role form one turn, tool results first. With a Governor's dialect memo, a copy
 * governed again resumes after the turns converted last time.
 */
export function modelToAnthropic(messages: readonly Message[], dialect: DialectMemo = new DialectMemo()): AnthropicMessageLike[] {
  // The governor gives back the same objects for the same history: resume after the turns
  // converted last time whose messages (and the one after them) are unchanged.
  const reverseMemo = dialect.weak<Message, ReverseMemo>('anthropic:reverse');
  const first = messages[0];
  const memo = first !== undefined ? reverseMemo.get(first) : undefined;
  let p = 0;
  if (memo !== undefined) {
    const n = Math.min(memo.messages.length, messages.length);
    while (p < n && memo.messages[p] === messages[p]) p++;
    if (p === memo.messages.length && p === messages.length) return memo.result.slice();
  }
  let k = 0;
  if (memo !== undefined) while (k < memo.starts.length && (memo.starts[k + 1] ?? memo.messages.length) < p) k++;
  const result = memo !== undefined ? memo.result.slice(0, k) : [];
  const starts = memo !== undefined ? memo.starts.slice(0, k) : [];
  const from = memo !== undefined && k > 0 ? (memo.starts[k] ?? memo.messages.length) : 0;
  const turns: Turn[] = [];
  const turnStarts: number[] = [];
  for (let i = from; i < messages.length; i++) {
    const m = messages[i];
    const origin = originOf<AnthropicPieceOrigin>(m);
    if (m.role === 'system' && origin !== undefined && origin.param === null) continue;
    const before = turns.length;
    if (isInstructionRole(m.role)) {
      // A `system` turn of `messages` that the governor left at the head: Anthropic takes
      // instructions only as the system prompt, which stays as given, so it goes as a note on
      // the user side, as govern does with instructions in mid-history.
      const blocks = [{ type: 'text', text: instructionNoteHeader(String(m.role)) }, ...contentBlocks(m.content)] as AnthropicBlockLike[];
      push(turns, 'user', { origin, unchanged: false, blocks });
    } else {
      const unchanged = origin !== undefined && origin.message === m;
      push(turns, m.role === 'assistant' ? 'assistant' : 'user', { origin, unchanged, blocks: unchanged ? origin.blocks : rebuild(m, origin) });
    }
    if (turns.length > before) turnStarts.push(i);
  }
  for (const t of turns) result.push(finish(t));
  starts.push(...turnStarts);
  if (first !== undefined) reverseMemo.set(first, { messages: messages.slice(), result, starts });
  return result.slice();
}
