import type { ContentPart, LLMRequest, Message, ResponseFormat, ThinkingBlock } from '@nanobot/schema';
import { isOpenAIReasoningModel } from './openai-request.js';
import { sanitizeEmptyContent } from './sanitize-empty-content.js';
import { toolArgumentsJsonForReplay } from './tool-arguments.js';

type Json = Record<string, unknown>;

/** How `buildResponsesParams` shapes the request. */
export interface ResponsesParamOptions {
  /**
   * Ask the API to keep nothing (`store: false`, default true): reasoning then travels back as
   * `encrypted_content`, which is requested with `include`.
   */
  storeless?: boolean;
  defaultMaxTokens?: number;
  defaultTemperature?: number;
  /** `reasoning.summary` to ask for (default `auto` when a reasoning effort is set). */
  reasoningSummary?: 'auto' | 'concise' | 'detailed' | null;
}

/** A Responses reasoning item kept on an assistant message as a thinking block of type `reasoning`. */
export interface ReasoningBlock extends ThinkingBlock {
  type: 'reasoning';
  id: string;
  summary?: { type: 'summary_text'; text: string }[];
  encrypted_content?: string | null;
}

/** Whether a stored thinking block is a Responses reasoning item (other providers ignore these). */
export function isReasoningBlock(block: ThinkingBlock | null | undefined): block is ReasoningBlock {
  return block?.type === 'reasoning' && typeof block.id === 'string';
}

function textOf(content: Message['content']): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((p) => (typeof (p as { text?: unknown }).text === 'string' ? (p as { text: string }).text : '')).join('');
}

function inputParts(content: ContentPart[]): Json[] {
  const parts: Json[] = [];
  for (const part of content) {
    if (part.type === 'text' && typeof part.text === 'string') parts.push({ type: 'input_text', text: part.text });
    else if (part.type === 'image_url' && typeof (part as { image_url?: { url?: unknown } }).image_url?.url === 'string') {
      const image = (part as { image_url: { url: string; detail?: string } }).image_url;
      parts.push({ type: 'input_image', image_url: image.url, detail: image.detail ?? 'auto' });
    } else if (part.type.startsWith('input_')) parts.push({ ...part });
  }
  return parts;
}

function hasImage(content: Message['content']): content is ContentPart[] {
  return Array.isArray(content) && content.some((p) => p.type === 'image_url' || p.type === 'input_image');
}

/** An instruction or user message: a string when it is text only, else input parts. */
function messageItem(role: string, content: Message['content']): Json {
  return { role, content: hasImage(content) ? inputParts(content) : textOf(content) };
}

function reasoningItem(block: ReasoningBlock): Json {
  const item: Json = { type: 'reasoning', id: block.id, summary: (block.summary ?? []).map((s) => ({ type: 'summary_text', text: s.text })) };
  if (typeof block.encrypted_content === 'string') item.encrypted_content = block.encrypted_content;
  return item;
}

/**
 * Our messages → Responses input items, on a copy: instructions keep their place and role
 * (`system` or `developer`), an assistant turn becomes its reasoning items (kept before the
 * output they led to, as the API requires), its text and one `function_call` per tool call, and
 * a tool result becomes a `function_call_output` (with input parts when it carries images).
 */
export function toResponsesInput(messages: readonly Message[]): Json[] {
  const items: Json[] = [];
  for (const message of sanitizeEmptyContent(messages)) {
    switch (message.role) {
      case 'assistant': {
        for (const block of message.thinking_blocks ?? []) if (isReasoningBlock(block)) items.push(reasoningItem(block));
        const text = textOf(message.content);
        if (text.trim() !== '') items.push({ role: 'assistant', content: text });
        for (const call of message.tool_calls ?? []) {
          if (!call?.function?.name) continue;
          items.push({ type: 'function_call', call_id: call.id, name: call.function.name, arguments: toolArgumentsJsonForReplay(call.function.arguments) });
        }
        break;
      }
      case 'tool':
        items.push({
          type: 'function_call_output',
          call_id: message.tool_call_id,
          output: hasImage(message.content) ? inputParts(message.content) : textOf(message.content),
        });
        break;
      default:
        items.push(messageItem(message.role === 'system' || message.role === 'developer' ? message.role : 'user', message.content));
    }
  }
  return items;
}

/** `text.format` for a structured-output request. */
export function responsesTextFormat(format: ResponseFormat): Json {
  const out: Json = { type: 'json_schema', name: format.name, schema: format.schema, strict: format.strict ?? false };
  if (format.description !== undefined) out.description = format.description;
  return out;
}

/**
 * The Responses request body for `request` (without `stream`): input items, function tools in
 * the Responses shape, `max_output_tokens`, reasoning effort, structured output as `text.format`,
 * and `store: false` with encrypted reasoning when `storeless`. `extraBody` is merged last.
 */
export function buildResponsesParams(request: LLMRequest, model: string, options: ResponsesParamOptions = {}): Json {
  const params: Json = { model, input: toResponsesInput(request.messages) };
  const tools = request.tools ?? [];
  if (tools.length > 0) {
    params.tools = tools.map((t) => {
      const fn = t.function;
      const tool: Json = { type: 'function', name: fn.name, parameters: fn.parameters, strict: false };
      if (fn.description !== undefined) tool.description = fn.description;
      return tool;
    });
    const choice = request.toolChoice ?? 'auto';
    params.tool_choice = typeof choice === 'string' ? choice : { type: 'function', name: choice.name };
  }
  const maxTokens = request.maxTokens ?? options.defaultMaxTokens;
  if (maxTokens !== undefined) params.max_output_tokens = Math.max(16, maxTokens);
  const effort = request.reasoningEffort;
  const temperature = request.temperature ?? options.defaultTemperature;
  if (temperature !== undefined && !(isOpenAIReasoningModel(model) && effort)) params.temperature = temperature;
  if (effort) {
    const summary = options.reasoningSummary === undefined ? 'auto' : options.reasoningSummary;
    params.reasoning = summary === null ? { effort } : { effort, summary };
  }
  if (request.responseFormat) params.text = { format: responsesTextFormat(request.responseFormat) };
  if (options.storeless ?? true) {
    params.store = false;
    // Only reasoning models have encrypted reasoning; asking others for it is a 400.
    if (effort || isOpenAIReasoningModel(model)) params.include = ['reasoning.encrypted_content'];
  }
  // Server-side compaction (`[{ type: 'compaction', compact_threshold }]`), passed through as given.
  if (request.contextManagement !== undefined) params.context_management = request.contextManagement;
  if (request.extraBody) Object.assign(params, request.extraBody);
  return params;
}
