// What a person pasted into the playground, read as one of the history formats the governor
// governs: OpenAI chat messages, an Anthropic Messages history, OpenAI Responses input items or
// AI SDK ModelMessages — bare lists or the request bodies that carry them. Pure; runs in the
// browser (no node:*), so the page needs no server to read or govern a history.
import { NanobotError } from '@nanobot/schema';

/** The history formats the playground reads. */
export type HistoryFormat = 'openai' | 'anthropic' | 'responses' | 'ai-sdk';

/** The formats, with how the page names them. */
export const HISTORY_FORMATS: readonly { format: HistoryFormat; label: string }[] = [
  { format: 'openai', label: 'OpenAI chat' },
  { format: 'anthropic', label: 'Anthropic Messages' },
  { format: 'responses', label: 'OpenAI Responses' },
  { format: 'ai-sdk', label: 'AI SDK ModelMessage' },
];

/** A history read from text: its format and the list (and, for Anthropic, the system prompt). */
export interface ReadHistory {
  format: HistoryFormat;
  /** The messages or items, as given (never copied or changed). */
  items: readonly unknown[];
  /** Anthropic's top-level `system` parameter, when the pasted request body had one. */
  system?: unknown;
  /** Where the list was found (`messages`, `input`, `prompt`, or the top level). */
  path: string;
}

/** Input the playground cannot read: not JSON, or no history of a known format. `code` is stable. */
export class HistoryInputError extends NanobotError {
  constructor(
    code: 'INVALID_JSON' | 'UNKNOWN_SHAPE' | 'MIXED_FORMATS' | 'EMPTY_HISTORY',
    message: string,
  ) {
    super(code, message);
  }
}

const RESPONSES_ITEM_TYPES: ReadonlySet<string> = new Set(['message', 'function_call', 'function_call_output', 'reasoning', 'custom_tool_call', 'custom_tool_call_output', 'item_reference', 'web_search_call', 'file_search_call', 'computer_call', 'computer_call_output', 'local_shell_call', 'local_shell_call_output', 'mcp_call', 'mcp_list_tools', 'mcp_approval_request', 'mcp_approval_response', 'image_generation_call', 'code_interpreter_call', 'compaction']);
const RESPONSES_PART_TYPES: ReadonlySet<string> = new Set(['input_text', 'output_text', 'input_image', 'input_file', 'input_audio', 'refusal']);
const ANTHROPIC_PART_TYPES: ReadonlySet<string> = new Set(['tool_use', 'tool_result', 'thinking', 'redacted_thinking', 'server_tool_use', 'web_search_tool_result', 'web_fetch_tool_result', 'code_execution_tool_result', 'mcp_tool_use', 'mcp_tool_result', 'document', 'search_result', 'container_upload']);
const AI_SDK_PART_TYPES: ReadonlySet<string> = new Set(['tool-call', 'tool-result', 'reasoning', 'file', 'tool-approval-request', 'tool-approval-response']);
const CHAT_ROLES: ReadonlySet<string> = new Set(['system', 'developer', 'user', 'assistant', 'tool', 'function']);

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Where `text` fails to parse, as "line L, column C" (JSON.parse only gives a position). */
function whereInText(text: string, error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const at = /position (\d+)/.exec(message);
  if (!at) return message;
  const offset = Number(at[1]);
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  const column = offset - before.lastIndexOf('\n');
  return `${message.replace(/\s*\(line \d+ column \d+\)/, '')} (line ${line}, column ${column})`;
}

/** The formats one message or item points to (none: it fits several, e.g. `{ role, content: 'text' }`). */
function signalsOf(item: unknown): Set<HistoryFormat> {
  const out = new Set<HistoryFormat>();
  if (!isRecord(item)) return out;
  if (typeof item.type === 'string' && RESPONSES_ITEM_TYPES.has(item.type)) out.add('responses');
  if ('tool_calls' in item || 'tool_call_id' in item || item.role === 'developer' && typeof item.content === 'string' || item.role === 'function') out.add('openai');
  if (item.role === 'tool' && typeof item.content === 'string') out.add('openai');
  if (Array.isArray(item.content)) {
    for (const part of item.content) {
      if (!isRecord(part) || typeof part.type !== 'string') continue;
      if (RESPONSES_PART_TYPES.has(part.type)) out.add('responses');
      else if (ANTHROPIC_PART_TYPES.has(part.type)) out.add('anthropic');
      else if (AI_SDK_PART_TYPES.has(part.type)) out.add('ai-sdk');
      else if (part.type === 'image_url' || part.type === 'input_audio') out.add('openai');
    }
  }
  return out;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/** The history list inside `value` (a bare list or a request body) and where it was. */
function listOf(value: unknown): { items: readonly unknown[]; system?: unknown; path: string; hint?: HistoryFormat } {
  if (Array.isArray(value)) return { items: value, path: '(top level)' };
  if (isRecord(value)) {
    if (Array.isArray(value.messages)) {
      const hint: HistoryFormat | undefined = 'system' in value ? 'anthropic' : undefined;
      return { items: value.messages, ...('system' in value ? { system: value.system } : {}), path: 'messages', ...(hint ? { hint } : {}) };
    }
    if (Array.isArray(value.input)) return { items: value.input, path: 'input', hint: 'responses' };
    if (Array.isArray(value.prompt)) return { items: value.prompt, path: 'prompt', hint: 'ai-sdk' };
    const keys = Object.keys(value).slice(0, 6).join(', ');
    throw new HistoryInputError('UNKNOWN_SHAPE', `This is an object without a history: expected a list of messages, or a request body with "messages" (OpenAI chat, Anthropic), "input" (Responses) or "prompt" (AI SDK); it has ${keys ? `the keys ${keys}` : 'no keys'}.`);
  }
  throw new HistoryInputError('UNKNOWN_SHAPE', `This is ${describe(value)}, not a history: expected a list of messages or a request body that holds one.`);
}

/**
 * Reads `text` as a history. `format` forces one (the page's format menu); without it the
 * format is told from the messages' shapes (content part and item types, `tool_calls`), and a
 * list of plain `{ role, content: string }` messages, which every format accepts, reads as
 * OpenAI chat (or Anthropic when a request body has a top-level `system`). Throws
 * {@link HistoryInputError} with a message that says what is wrong and where. Pure.
 */
export function readHistory(text: string, format?: HistoryFormat): ReadHistory {
  if (text.trim() === '') throw new HistoryInputError('EMPTY_HISTORY', 'Nothing to govern yet: paste or drop a history, or pick a recorded session.');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new HistoryInputError('INVALID_JSON', `This is not valid JSON: ${whereInText(text, error)}.`);
  }
  const { items, system, path, hint } = listOf(value);
  if (items.length === 0) throw new HistoryInputError('EMPTY_HISTORY', `The history${path === '(top level)' ? '' : ` in "${path}"`} is an empty list: there is nothing to govern.`);
  items.forEach((item, i) => {
    if (!isRecord(item)) throw new HistoryInputError('UNKNOWN_SHAPE', `Item ${i} of the history is ${describe(item)}; every message or item must be an object.`);
  });
  const base = { items, path, ...(system !== undefined ? { system } : {}) };
  if (format !== undefined) return { format, ...base };
  const seen = new Map<HistoryFormat, number>();
  items.forEach((item, i) => {
    for (const f of signalsOf(item)) if (!seen.has(f)) seen.set(f, i);
  });
  if (hint !== undefined && (seen.size === 0 || (seen.size === 1 && seen.has(hint)))) return { format: hint, ...base };
  if (seen.size > 1) {
    const found = [...seen].map(([f, i]) => `${HISTORY_FORMATS.find((x) => x.format === f)!.label} (item ${i})`).join(' and ');
    throw new HistoryInputError('MIXED_FORMATS', `This history mixes formats: ${found}. Pick its format in the menu to read it as one of them.`);
  }
  if (seen.size === 1) return { format: [...seen.keys()][0], ...base };
  const unknownRole = items.findIndex((item) => !CHAT_ROLES.has(String((item as Record<string, unknown>).role)));
  if (unknownRole >= 0) {
    const item = items[unknownRole] as Record<string, unknown>;
    const shape = 'role' in item ? `the role ${JSON.stringify(item.role)}` : `no role (keys: ${Object.keys(item).slice(0, 6).join(', ') || 'none'})`;
    throw new HistoryInputError('UNKNOWN_SHAPE', `Item ${unknownRole} has ${shape}: this does not look like a chat history of a known format (OpenAI chat, Anthropic, Responses, AI SDK).`);
  }
  return { format: 'openai', ...base };
}
