// The governor's output → LangChain messages. A message the governor left alone gives back the
// source object; anything else becomes a new message of the class for its role, with every
// field of its origin (id, name, additional_kwargs, response_metadata, usage_metadata,
// invalid_tool_calls, status, artifact, metadata) and every block and tool call it still
// carries, and only what the governor rewrote taken from the governor message.
import { AIMessage, HumanMessage, SystemMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import { BACKFILL_CONTENT } from '@nanobot/governor';
import type { Message } from '@nanobot/schema';
import type { DialectMemo } from '@nanobot/governor/dialect';
import { originOf, type MessageOrigin, type PartOrigin } from './origin.js';

type Fields = Record<string, unknown>;

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function parseArguments(args: unknown): unknown {
  if (typeof args !== 'string') return args ?? {};
  try {
    return JSON.parse(args) as unknown;
  } catch {
    return args;
  }
}

function backContent(content: unknown, origin: MessageOrigin | undefined): string | Record<string, unknown>[] {
  if (origin !== undefined && content === origin.content) return origin.source.content as string | Record<string, unknown>[];
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((p: unknown) => {
    const o = originOf<PartOrigin>(p);
    const part = isRecord(p) ? p : { type: 'text', text: String(p) };
    if (o !== undefined) return o.made === undefined || part.text === o.made ? o.part : { ...o.part, text: part.text };
    return part.type === 'text' ? { type: 'text', text: typeof part.text === 'string' ? part.text : '' } : part;
  });
}

function backCall(call: unknown): Record<string, unknown> {
  const c = (isRecord(call) ? call : {}) as { id?: unknown; function?: { name?: unknown; arguments?: unknown } };
  const o = originOf<PartOrigin>(call);
  const id = String(c.id ?? '');
  const name = String(c.function?.name ?? '');
  const args = c.function?.arguments;
  if (o !== undefined) {
    const same = args === o.made;
    if (same && id === o.part.id && name === o.part.name) return o.part;
    return { ...o.part, id, name, args: same ? o.part.args : parseArguments(args) };
  }
  return { type: 'tool_call', id, name, args: parseArguments(args) };
}

/** The fields of the source worth keeping on a rebuilt message of the same kind. */
function kept(source: BaseMessage | undefined, keys: string[]): Fields {
  const out: Fields = {};
  if (source === undefined) return out;
  const s = source as unknown as Fields;
  for (const key of ['id', 'name', 'additional_kwargs', 'response_metadata', ...keys]) {
    if (s[key] !== undefined) out[key] = s[key];
  }
  return out;
}

function rebuild(g: Message): BaseMessage {
  const origin = originOf<MessageOrigin>(g);
  const sourceType = origin?.source.type;
  const content = backContent(g.content, origin);
  switch (g.role) {
    case 'assistant': {
      const fields: Fields = { ...kept(sourceType === 'ai' ? origin?.source : undefined, ['usage_metadata', 'invalid_tool_calls']), content };
      fields.tool_calls = Array.isArray(g.tool_calls) ? g.tool_calls.map(backCall) : [];
      return new AIMessage(fields as unknown as ConstructorParameters<typeof AIMessage>[0]);
    }
    case 'tool': {
      const fields: Fields = { ...kept(sourceType === 'tool' ? origin?.source : undefined, ['status', 'artifact', 'metadata']), content, tool_call_id: String(g.tool_call_id ?? '') };
      if (fields.name === undefined && typeof g.name === 'string' && g.name) fields.name = g.name;
      if (origin === undefined && g.content === BACKFILL_CONTENT) fields.status = 'error';
      return new ToolMessage(fields as unknown as ConstructorParameters<typeof ToolMessage>[0]);
    }
    case 'system':
    case 'developer':
      return new SystemMessage({ ...kept(sourceType === 'system' || sourceType === 'developer' ? origin?.source : undefined, []), content } as unknown as ConstructorParameters<typeof SystemMessage>[0]);
    default:
      return new HumanMessage({ ...kept(sourceType === 'human' ? origin?.source : undefined, []), content } as unknown as ConstructorParameters<typeof HumanMessage>[0]);
  }
}

// Lookups per view (a view is reused while its history is), and rebuilt messages per governor
// message (the governor hands back the same rewritten objects for the same history), in `memo`.
function rebuilt(g: Message, memo: DialectMemo): BaseMessage {
  const rebuiltCache = memo.weak<Message, BaseMessage>('langchain:rebuilt');
  let out = rebuiltCache.get(g);
  if (out === undefined) {
    out = rebuild(g);
    rebuiltCache.set(g, out);
  }
  return out;
}

/**
 * Writes `governed` (the governor's output for `view`) back as LangChain messages, with the
 * lookups and rebuilt messages kept in `memo`. Never mutates its inputs; returns `source` itself
 * when the governor returned the view unchanged.
 */
export function fromGovernorView(source: readonly BaseMessage[], view: readonly Message[], governed: readonly Message[], memo: DialectMemo): BaseMessage[] {
  const positions = memo.weak<readonly Message[], Map<Message, number>>('langchain:positions');
  if (governed === view) return source as BaseMessage[];
  // The governor keeps order and shares structure: an output message is mostly the view message
  // after the previous one (a pointer comparison); only the others need the lookup.
  let cursor = 0;
  let position: Map<Message, number> | undefined;
  return governed.map((g) => {
    let i: number | undefined;
    if (view[cursor] === g) i = cursor;
    else {
      position ??= positions.get(view);
      if (position === undefined) {
        position = new Map();
        view.forEach((m, j) => position!.set(m, j));
        positions.set(view, position);
      }
      i = position.get(g);
    }
    if (i !== undefined) cursor = i + 1;
    return i === undefined ? rebuilt(g, memo) : source[i];
  });
}
