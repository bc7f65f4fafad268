import { pythonJsonDumps, sha1Hex } from '@nanobot/schema';
import type { CacheBreakpoints, LLMRequest, Message } from '@nanobot/schema';
import { planAnthropicBreakpoints } from './anthropic-cache-breakpoints.js';
import { EMPTY_CONTENT_PLACEHOLDER, sanitizeEmptyContent } from './sanitize-empty-content.js';
import { hasValidToolName } from './tool-call-request.js';
import { toolArgumentsObjectForReplay } from './tool-arguments.js';
import { toolCacheMarkerIndices } from './tool-cache-markers.js';

type Block = Record<string, unknown>;
/** One turn of the Messages API, always with block-list content. */
export interface AnthropicTurn {
  role: 'user' | 'assistant';
  content: Block[];
}
/** What `toAnthropicMessages` returns: the system blocks and the alternating turns. */
export interface AnthropicConversation {
  system: Block[];
  messages: AnthropicTurn[];
  /** Indices of the tool definitions that get a breakpoint (planned placement only). */
  toolBreakpoints?: number[];
}

/** Options of `toAnthropicMessages`. */
export interface AnthropicMessageOptions {
  /** Prompt-cache markers: the planned `breakpoints` when given, else the fixed rule. */
  cacheControl?: boolean;
  /** Planned boundaries (indices into the messages); see `planAnthropicBreakpoints`. */
  breakpoints?: CacheBreakpoints;
  /** How many tool definitions the request sends (for the `tools` boundary). */
  toolCount?: number;
}

const CACHE_MARKER = { type: 'ephemeral' } as const;
const VALID_ID = /^[a-zA-Z0-9_-]+$/;
/** The synthetic opener before a history that starts with the assistant (reference text). */
export const ANTHROPIC_CONVERSATION_CONTINUED = '(conversation continued)';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** An id the Messages API accepts (`^[a-zA-Z0-9_-]+$`), stable for the same input. */
export function sanitizeAnthropicToolId(id: string): string {
  if (VALID_ID.test(id)) return id;
  const prefix = id.replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, 48).replace(/^_+|_+$/g, '') || 'toolu';
  return `${prefix}_${sha1Hex(id, 8)}`;
}

/**
 * Renames call ids across one history: invalid ids sanitised, repeats suffixed `__dedupe_<n>`,
 * and each tool result mapped to the renamed id of its call in FIFO order per original id. A
 * missing id becomes `toolu_missing_<n>` by position (the reference draws a random one), so the
 * same history converts to the same bytes on every request and its cached prefix still matches.
 */
class ToolIdMapper {
  private readonly used = new Set<string>();
  private readonly pending = new Map<string, string[]>();
  private missing = 0;

  private freshId(): string {
    let id: string;
    do id = `toolu_missing_${++this.missing}`;
    while (this.used.has(id));
    return id;
  }

  forCall(raw: unknown): string {
    const original = typeof raw === 'string' && raw !== '' ? raw : undefined;
    let id = original === undefined ? this.freshId() : sanitizeAnthropicToolId(original);
    if (this.used.has(id)) {
      let n = 2;
      while (this.used.has(`${id}__dedupe_${n}`)) n++;
      id = `${id}__dedupe_${n}`;
    }
    this.used.add(id);
    if (original !== undefined) {
      const queue = this.pending.get(original) ?? [];
      queue.push(id);
      this.pending.set(original, queue);
    }
    return id;
  }

  forResult(raw: unknown): string {
    const original = typeof raw === 'string' ? raw : String(raw ?? '');
    const queue = this.pending.get(original);
    if (queue && queue.length > 0) return queue.shift()!;
    return original === '' ? this.freshId() : sanitizeAnthropicToolId(original);
  }
}

function imageBlock(part: Record<string, unknown>): Block {
  const spec = part.image_url;
  const url = typeof spec === 'string' ? spec : isRecord(spec) && typeof spec.url === 'string' ? spec.url : '';
  const data = /^data:(image\/[a-zA-Z0-9.+-]+);base64,(.*)$/s.exec(url);
  if (data) return { type: 'image', source: { type: 'base64', media_type: data[1], data: data[2] } };
  return { type: 'image', source: { type: 'url', url } };
}

/** User/tool/system content → Messages API blocks (text, images; type-less dicts as sorted JSON text). */
function contentBlocks(content: unknown): Block[] {
  if (content === null || content === undefined) return [];
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }];
  if (!Array.isArray(content)) return [{ type: 'text', text: isRecord(content) ? pythonJsonDumps(content, { sortKeys: true }) : String(content) }];
  const blocks: Block[] = [];
  for (const part of content) {
    if (!isRecord(part)) {
      blocks.push({ type: 'text', text: String(part) });
    } else if (part.type === 'text' || part.type === 'input_text' || part.type === 'output_text') {
      if (typeof part.text === 'string' && part.text !== '') blocks.push({ type: 'text', text: part.text });
    } else if (part.type === 'image_url') {
      blocks.push(imageBlock(part));
    } else if (typeof part.type === 'string') {
      blocks.push(part);
    } else {
      blocks.push({ type: 'text', text: pythonJsonDumps(part, { sortKeys: true }) });
    }
  }
  return blocks;
}

function toolResultContent(content: unknown): string | Block[] {
  if (typeof content === 'string') return content === '' ? EMPTY_CONTENT_PLACEHOLDER : content;
  if (Array.isArray(content)) {
    const blocks = contentBlocks(content).filter((b) => b.type === 'text' || b.type === 'image');
    return blocks.length > 0 ? blocks : EMPTY_CONTENT_PLACEHOLDER;
  }
  if (content === null || content === undefined || content === false || content === 0) return EMPTY_CONTENT_PLACEHOLDER;
  return isRecord(content) ? pythonJsonDumps(content, { sortKeys: true }) : String(content);
}

function assistantBlocks(message: Message, ids: ToolIdMapper): Block[] {
  const blocks: Block[] = [];
  for (const tb of message.thinking_blocks ?? []) {
    if (!isRecord(tb)) continue;
    if (tb.type === 'thinking' && typeof tb.thinking === 'string' && typeof tb.signature === 'string') {
      blocks.push({ type: 'thinking', thinking: tb.thinking, signature: tb.signature });
    } else if (tb.type === 'redacted_thinking' && typeof tb.data === 'string') {
      blocks.push({ type: 'redacted_thinking', data: tb.data });
    }
  }
  blocks.push(...contentBlocks(message.content));
  for (const call of Array.isArray(message.tool_calls) ? message.tool_calls : []) {
    const fn = isRecord(call) && isRecord(call.function) ? call.function : undefined;
    if (!fn || !hasValidToolName(fn)) continue;
    blocks.push({ type: 'tool_use', id: ids.forCall(call.id), name: fn.name, input: toolArgumentsObjectForReplay(fn.arguments) });
  }
  return blocks;
}

function hasToolUse(turn: AnthropicTurn): boolean {
  return turn.content.some((b) => b.type === 'tool_use');
}

function markLast(blocks: Block[]): Block[] {
  return blocks.length === 0 ? blocks : markAt(blocks, blocks.length - 1);
}

function markAt(blocks: Block[], index: number): Block[] {
  const out = blocks.slice();
  out[index] = { ...out[index], cache_control: CACHE_MARKER };
  return out;
}

/**
 * Our messages → Messages API `system` + `messages`, on a copy. Every system message joins the
 * system prompt (the reference keeps only the last); tool results become `tool_result` blocks in
 * user turns (placed first, as the API requires); same-role turns are merged by concatenating
 * their blocks, so nothing is lost; trailing assistant turns are removed and a leading assistant
 * gets a synthetic user opener. With `cacheControl` and planned `breakpoints`, at most four
 * markers go exactly at those boundaries; with `cacheControl` alone, on the last system block
 * and on the second-to-last turn.
 */
export function toAnthropicMessages(messages: readonly Message[], options: AnthropicMessageOptions = {}): AnthropicConversation {
  const clean = sanitizeEmptyContent(messages);
  const ids = new ToolIdMapper();
  let system: Block[] = [];
  const raw: AnthropicTurn[] = [];
  // Which message each block came from, kept only for a planned placement.
  const planned = options.cacheControl === true && options.breakpoints !== undefined;
  const source = new Map<Block, number>();
  const systemSources: number[] = [];
  const sourced = (blocks: Block[], index: number): Block[] => {
    if (!planned) return blocks;
    // The same part object in two messages would otherwise have one source.
    const out = blocks.map((b) => (source.has(b) ? { ...b } : b));
    for (const b of out) source.set(b, index);
    return out;
  };
  clean.forEach((message, index) => {
    if (message.role === 'system') {
      const blocks = sourced(contentBlocks(message.content).filter((b) => b.type === 'text'), index);
      system.push(...blocks);
      if (planned) for (let k = 0; k < blocks.length; k++) systemSources.push(index);
    } else if (message.role === 'tool') {
      raw.push({ role: 'user', content: sourced([{ type: 'tool_result', tool_use_id: ids.forResult(message.tool_call_id), content: toolResultContent(message.content) }], index) });
    } else if (message.role === 'assistant') {
      const blocks = sourced(assistantBlocks(message, ids), index);
      // An empty assistant turn carries nothing, and the API rejects empty text blocks.
      if (blocks.length > 0) raw.push({ role: 'assistant', content: blocks });
    } else if (message.role === 'user') {
      const blocks = contentBlocks(message.content);
      raw.push({ role: 'user', content: sourced(blocks.length > 0 ? blocks : [{ type: 'text', text: EMPTY_CONTENT_PLACEHOLDER }], index) });
    }
  });
  // Merge same-role neighbours into fresh arrays (the reference extends the first list in place).
  const turns: AnthropicTurn[] = [];
  for (const turn of raw) {
    const prev = turns[turns.length - 1];
    if (prev && prev.role === turn.role) turns[turns.length - 1] = { role: prev.role, content: [...prev.content, ...turn.content] };
    else turns.push(turn);
  }
  for (let i = 0; i < turns.length; i++) {
    const turn = turns[i];
    if (turn.role === 'user' && turn.content.some((b) => b.type === 'tool_result')) {
      const results = turn.content.filter((b) => b.type === 'tool_result');
      if (results.length !== turn.content.length) turns[i] = { role: 'user', content: [...results, ...turn.content.filter((b) => b.type !== 'tool_result')] };
    }
  }
  let lastPopped: AnthropicTurn | undefined;
  while (turns.length > 0 && turns[turns.length - 1].role === 'assistant') lastPopped = turns.pop();
  if (turns.length === 0 && lastPopped && !hasToolUse(lastPopped)) {
    const text = lastPopped.content.filter((b) => b.type === 'text');
    if (text.length > 0) turns.push({ role: 'user', content: text });
  }
  if (turns.length === 0) turns.push({ role: 'user', content: [{ type: 'text', text: EMPTY_CONTENT_PLACEHOLDER }] });
  if (turns[0].role === 'assistant') turns.unshift({ role: 'user', content: [{ type: 'text', text: ANTHROPIC_CONVERSATION_CONTINUED }] });
  if (planned) {
    const sites = planAnthropicBreakpoints(options.breakpoints!, clean, options.toolCount ?? 0, system, systemSources, turns, (b) => source.get(b) ?? -1);
    const toolBreakpoints: number[] = [];
    for (const site of sites) {
      if (site.kind === 'tool') toolBreakpoints.push(site.index);
      else if (site.kind === 'system') system = markAt(system, site.index);
      else turns[site.turn] = { role: turns[site.turn].role, content: markAt(turns[site.turn].content, site.index) };
    }
    return { system, messages: turns, toolBreakpoints };
  }
  if (options.cacheControl) {
    system = markLast(system);
    if (turns.length >= 3) {
      const i = turns.length - 2;
      turns[i] = { role: turns[i].role, content: markLast(turns[i].content) };
    }
  }
  return { system, messages: turns };
}

/** Models where manual thinking budgets are deprecated in favour of adaptive thinking. */
export function usesAdaptiveThinking(model: string): boolean {
  return /^claude-(mythos|opus-4-[6-9]|sonnet-4-[6-9]|haiku-4-[6-9]|(opus|sonnet|haiku)-[5-9])/.test(model);
}

/** Thinking budgets by reasoning effort (the reference's numbers). */
export function thinkingBudget(effort: string, maxTokens: number): number | undefined {
  if (effort === 'low') return 1024;
  if (effort === 'medium') return 4096;
  if (effort === 'high') return Math.max(8192, maxTokens);
  return undefined;
}

/** Options of `buildAnthropicParams`. */
export interface AnthropicParamOptions {
  /** Prompt-cache markers (default true, as the reference). */
  cacheControl?: boolean;
  /** `max_tokens` when the request names none (the API requires one; default 4096). */
  defaultMaxTokens?: number;
  defaultTemperature?: number;
}

/** The Messages API body for `request` (without `stream`); `anthropic/` model prefixes are removed. */
export function buildAnthropicParams(request: LLMRequest, model: string, options: AnthropicParamOptions = {}): Record<string, unknown> {
  const cacheControl = options.cacheControl ?? true;
  const tools = request.tools ?? [];
  const { system, messages, toolBreakpoints } = toAnthropicMessages(request.messages, { cacheControl, breakpoints: request.cacheBreakpoints, toolCount: tools.length });
  let maxTokens = Math.max(1, request.maxTokens ?? options.defaultMaxTokens ?? 4096);
  const params: Record<string, unknown> = { model: model.replace(/^anthropic\//, ''), messages };
  if (system.length > 0) params.system = system;
  const effort = request.reasoningEffort ?? undefined;
  let thinking = false;
  if (effort === 'adaptive') {
    params.thinking = { type: 'adaptive' };
    thinking = true;
  } else if (effort && effort !== 'none' && usesAdaptiveThinking(params.model as string)) {
    // Newer models dropped manual budgets: adaptive thinking with the effort as a hint.
    params.thinking = { type: 'adaptive' };
    params.output_config = { effort };
    thinking = true;
  } else if (effort) {
    const budget = thinkingBudget(effort, maxTokens);
    if (budget !== undefined) {
      params.thinking = { type: 'enabled', budget_tokens: budget };
      maxTokens = Math.max(maxTokens, budget + 4096);
      thinking = true;
    }
  }
  params.max_tokens = maxTokens;
  // The API accepts only the default temperature while thinking.
  const temperature = request.temperature ?? options.defaultTemperature;
  if (!thinking && temperature !== undefined) params.temperature = temperature;
  if (tools.length > 0) {
    const marks = new Set(toolBreakpoints ?? (cacheControl ? toolCacheMarkerIndices(tools) : []));
    params.tools = tools.map((tool, i) => {
      const fn = tool.function;
      const out: Block = { name: fn.name, input_schema: fn.parameters ?? { type: 'object', properties: {} } };
      if (fn.description) out.description = fn.description;
      if (marks.has(i)) out.cache_control = CACHE_MARKER;
      return out;
    });
    const choice = request.toolChoice ?? 'auto';
    if (thinking || choice === 'auto') params.tool_choice = { type: 'auto' };
    else if (choice === 'required') params.tool_choice = { type: 'any' };
    else if (choice === 'none') params.tool_choice = { type: 'none' };
    else params.tool_choice = { type: 'tool', name: choice.name };
  }
  if (request.responseFormat) {
    // Native structured output; it sits beside an effort hint in the same object.
    const existing = (params.output_config as Record<string, unknown> | undefined) ?? {};
    params.output_config = { ...existing, format: { type: 'json_schema', schema: request.responseFormat.schema } };
  }
  // Server-side context editing and compaction, passed through as given (see anthropicBetas).
  if (request.contextManagement !== undefined) params.context_management = request.contextManagement;
  if (request.extraBody) Object.assign(params, request.extraBody);
  return params;
}

/**
 * The `anthropic-beta` features a request's body needs: `context-management-2025-06-27` for
 * `context_management` edits (context editing), `compact-2026-01-12` for a `compact_…` edit
 * (server-side compaction); empty when none.
 */
export function anthropicBetas(params: Record<string, unknown>): string[] {
  const cm = params.context_management as { edits?: unknown } | undefined;
  if (cm === undefined || cm === null) return [];
  const edits = Array.isArray(cm.edits) ? (cm.edits as { type?: unknown }[]) : [];
  const betas = ['context-management-2025-06-27'];
  if (edits.some((e) => typeof e?.type === 'string' && e.type.startsWith('compact_'))) betas.push('compact-2026-01-12');
  return betas;
}
