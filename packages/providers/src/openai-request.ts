import { enforceRoleAlternation, separateToolResultsFromUser, TARGET_PROFILES } from '@nanobot/governor';
import type { CacheBreakpoints, LLMRequest, Message, ToolDefinition } from '@nanobot/schema';
import { sourcesAfterAlternation, sourcesAfterAttachmentMove } from './message-sources.js';
import { moveToolAttachmentsToUser } from './move-tool-attachments.js';
import { planOpenAIBreakpoints } from './openai-cache-breakpoints.js';
import { EMPTY_CONTENT_PLACEHOLDER, sanitizeEmptyContent } from './sanitize-empty-content.js';
import { OPENAI_MESSAGE_KEYS, sanitizeRequestMessages } from './sanitize-request-messages.js';
import { toolArgumentsJsonForReplay } from './tool-arguments.js';
import { toolCacheMarkerIndices } from './tool-cache-markers.js';
import { applySpecQuirks, messageKeysFor } from './openai-spec-quirks.js';
import type { ProviderSpec } from './registry/provider-spec.js';

const CACHE_MARKER = { type: 'ephemeral' } as const;

/** How `toOpenAIMessages` shapes the copy it sends. */
export interface OpenAIMessageOptions {
  /** Send `reasoning_content` back (DeepSeek/Kimi-style APIs want it; default true). */
  keepReasoningContent?: boolean;
  /**
   * Put Anthropic-style `cache_control` markers on the system prompt and the second-to-last
   * message (`buildOpenAIParams`: at the request's `cacheBreakpoints` when it has them).
   */
  cacheControl?: boolean;
  /**
   * Send `content: null` on assistant messages that carry tool calls, as the reference does for
   * gateways that reject the mix (default false: the text is kept).
   */
  nullContentWithToolCalls?: boolean;
  /**
   * The registry spec of the provider behind the endpoint: which message fields go back
   * (`reasoning_details` for OpenRouter, no `reasoning_content` for Mistral) and, in
   * `buildOpenAIParams`, its request quirks. Absent: a plain OpenAI-compatible endpoint.
   */
  spec?: ProviderSpec;
}

function markLastBlock(message: Message): Message {
  const content = message.content;
  if (typeof content === 'string') return { ...message, content: [{ type: 'text', text: content, cache_control: CACHE_MARKER }] };
  if (Array.isArray(content) && content.length > 0) {
    const blocks = content.slice();
    const last = blocks[blocks.length - 1];
    if (typeof last === 'object' && last !== null) blocks[blocks.length - 1] = { ...last, cache_control: CACHE_MARKER };
    return { ...message, content: blocks };
  }
  return message;
}

/** `message` with `cache_control` on content part `part` (string content becomes one text part). */
function markPart(message: Message, part: number): Message {
  const content = message.content;
  if (typeof content === 'string') return { ...message, content: [{ type: 'text', text: content, cache_control: CACHE_MARKER }] };
  if (!Array.isArray(content)) return message;
  const blocks = content.slice();
  blocks[part] = { ...blocks[part], cache_control: CACHE_MARKER };
  return { ...message, content: blocks };
}

/**
 * Content the API accepts: only an assistant with tool calls may go without it. A missing,
 * `null` or empty-list content elsewhere (an aborted turn is stored as `{role: 'assistant',
 * content: null}`) becomes the empty-content placeholder; OpenAI answers 400 "expected a string,
 * got null" otherwise. The reference sends these as they are.
 */
function withRequiredContent(message: Message): Message {
  const content = message.content;
  if (!(content === null || content === undefined || (Array.isArray(content) && content.length === 0))) return message;
  if (message.role === 'assistant' && Array.isArray(message.tool_calls) && message.tool_calls.length > 0) {
    return content === null ? message : { ...message, content: null };
  }
  return { ...message, content: EMPTY_CONTENT_PLACEHOLDER };
}

/**
 * Our messages → what an OpenAI-compatible chat-completions endpoint accepts, on a copy:
 * empty-content and surrogate sanitising, `_meta` and other internal keys removed, replayed
 * tool-call arguments repaired into JSON object strings, images in tool results moved to a user
 * message after the tool results, role alternation (from @nanobot/governor), and every message
 * without tool calls given content. Unlike the reference, an assistant's text next to its tool
 * calls is kept.
 */
export function toOpenAIMessages(messages: readonly Message[], options: OpenAIMessageOptions = {}): Message[] {
  return convertMessages(messages, options).messages;
}

/** The planned boundaries of one request and how many tools it sends. */
interface PlannedBreakpoints {
  breakpoints: CacheBreakpoints;
  toolCount: number;
}

function convertMessages(messages: readonly Message[], options: OpenAIMessageOptions, planned?: PlannedBreakpoints): { messages: Message[]; toolBreakpoints?: number[] } {
  const specKeys = options.spec ? messageKeysFor(options.spec) : OPENAI_MESSAGE_KEYS;
  const keys = options.keepReasoningContent === false ? specKeys.filter((k) => k !== 'reasoning_content') : specKeys;
  const sanitized = sanitizeRequestMessages(sanitizeEmptyContent(messages), keys).map((message) => {
    if (message.role !== 'assistant' || !Array.isArray(message.tool_calls)) return message;
    const calls = message.tool_calls.map((call) => {
      const fn = call?.function ?? { name: '', arguments: '{}' };
      return { ...call, type: 'function' as const, function: { ...fn, arguments: toolArgumentsJsonForReplay(fn.arguments) } };
    });
    if (calls.length === 0) return (({ tool_calls: _t, ...rest }) => rest as Message)(message);
    return options.nullContentWithToolCalls ? { ...message, content: null, tool_calls: calls } : { ...message, tool_calls: calls };
  });
  // Merging can produce "" again (two empty turns), so empty content is checked afterwards; a
  // content-less turn is filled last so that merging with a neighbour loses no placeholder text.
  const moved = moveToolAttachmentsToUser(sanitized);
  let alternated = enforceRoleAlternation(moved);
  // The attachments' user message follows tool results: APIs that refuse a user message there
  // (Mistral, Gemini: the spec's governor target says so) get the governor's marked assistant
  // turn in between, as the governed copy has everywhere else. (Not with planned cache
  // breakpoints, whose source map counts the messages above; no such spec plans them.)
  const target = options.spec?.governorTarget;
  if (moved !== sanitized && target !== undefined && TARGET_PROFILES[target]?.assistantBetweenToolAndUser && !(options.cacheControl && planned)) {
    alternated = separateToolResultsFromUser(alternated).messages;
  }
  let out = sanitizeEmptyContent(alternated).map(withRequiredContent);
  if (options.cacheControl && planned) {
    // The sanitising steps keep message i at i; the attachment move inserts and the alternation merges.
    const sources = sourcesAfterAlternation(moved, sourcesAfterAttachmentMove(sanitized, sanitized.map((_, i) => i), moved), alternated);
    const toolBreakpoints: number[] = [];
    for (const site of planOpenAIBreakpoints(planned.breakpoints, messages.length, out, sources, planned.toolCount)) {
      if (site.kind === 'tool') toolBreakpoints.push(site.index);
      else out[site.message] = markPart(out[site.message], site.part);
    }
    return { messages: out, toolBreakpoints };
  }
  if (options.cacheControl) {
    out = out.slice();
    if (out[0]?.role === 'system') out[0] = markLastBlock(out[0]);
    if (out.length >= 3) out[out.length - 2] = markLastBlock(out[out.length - 2]);
  }
  return { messages: out };
}

/** Models that take `max_completion_tokens` and reject `temperature` with a reasoning effort. */
export function isOpenAIReasoningModel(model: string): boolean {
  return /^(openai\/)?(gpt-5|o1|o3|o4)/i.test(model);
}

/** Whether the reference would add prompt-cache markers for this model (Claude behind a gateway). */
export function wantsCacheControl(model: string): boolean {
  return /^(anthropic\/|claude)/i.test(model);
}

/** Options of `buildOpenAIParams`. */
export interface OpenAIParamOptions extends OpenAIMessageOptions {
  defaultMaxTokens?: number;
  defaultTemperature?: number;
  /** Fields merged into every request body (a provider's configured `extraBody`); a request's own `extraBody` wins. */
  extraBody?: Record<string, unknown>;
}

/**
 * The chat-completions request body for `request` (without `stream`). `tool_choice` defaults to
 * `auto` when tools are present; `extraBody` is merged last so callers can override anything.
 * With cache markers on and `request.cacheBreakpoints` given, at most four markers go exactly
 * at those boundaries (`planOpenAIBreakpoints`) instead of the fixed rule.
 */
export function buildOpenAIParams(request: LLMRequest, model: string, options: OpenAIParamOptions = {}): Record<string, unknown> {
  // A spec says whether the endpoint takes cache markers at all (OpenRouter does, DeepSeek not).
  const cacheControl = options.cacheControl ?? ((options.spec ? options.spec.supportsPromptCaching : true) && wantsCacheControl(model));
  const tools = request.tools ?? [];
  const planned = request.cacheBreakpoints ? { breakpoints: request.cacheBreakpoints, toolCount: tools.length } : undefined;
  const { messages, toolBreakpoints } = convertMessages(request.messages, { ...options, cacheControl }, planned);
  const params: Record<string, unknown> = { model, messages };
  if (tools.length > 0) {
    let defs: unknown[] = tools as ToolDefinition[];
    if (cacheControl) {
      const marks = new Set(toolBreakpoints ?? toolCacheMarkerIndices(tools));
      defs = tools.map((tool, i) => (marks.has(i) ? { ...tool, cache_control: CACHE_MARKER } : tool));
    }
    params.tools = defs;
    const choice = request.toolChoice ?? 'auto';
    params.tool_choice = typeof choice === 'string' ? choice : { type: 'function', function: { name: choice.name } };
  }
  const reasoning = isOpenAIReasoningModel(model);
  const maxTokens = request.maxTokens ?? options.defaultMaxTokens;
  if (maxTokens !== undefined) params[reasoning ? 'max_completion_tokens' : 'max_tokens'] = Math.max(1, maxTokens);
  const effort = request.reasoningEffort;
  const temperature = request.temperature ?? options.defaultTemperature;
  if (temperature !== undefined && !(reasoning && effort)) params.temperature = temperature;
  if (effort) params.reasoning_effort = effort;
  if (request.responseFormat) {
    const f = request.responseFormat;
    const jsonSchema: Record<string, unknown> = { name: f.name, schema: f.schema, strict: f.strict ?? false };
    if (f.description !== undefined) jsonSchema.description = f.description;
    params.response_format = { type: 'json_schema', json_schema: jsonSchema };
  }
  const quirked = options.spec ? applySpecQuirks(params, options.spec, model, effort) : params;
  if (options.extraBody) Object.assign(quirked, options.extraBody);
  if (request.extraBody) Object.assign(quirked, request.extraBody);
  return quirked;
}
