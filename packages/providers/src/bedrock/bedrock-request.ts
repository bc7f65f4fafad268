import type { LLMRequest, Message, ToolDefinition } from '@nanobot/schema';
import { EMPTY_CONTENT_PLACEHOLDER, sanitizeEmptyContent } from '../sanitize-empty-content.js';
import { toolArgumentsObjectForReplay } from '../tool-arguments.js';

type Json = Record<string, unknown>;

/** One Converse content block (`{ text }`, `{ image }`, `{ toolUse }`, `{ toolResult }`, `{ reasoningContent }`, …). */
export type ConverseBlock = Json;

/** One Converse message. */
export interface ConverseMessage {
  role: 'user' | 'assistant';
  content: ConverseBlock[];
}

/** Options of `buildConverseInput`. */
export interface ConverseParamOptions {
  defaultMaxTokens?: number;
  defaultTemperature?: number;
  /** Provider-specific fields for the model (`additionalModelRequestFields`), e.g. Claude's `thinking`. */
  additionalModelRequestFields?: Record<string, unknown>;
}

const IMAGE_DATA_URL = /^data:image\/([a-zA-Z0-9.+-]+);base64,(.*)$/s;
const TEXT_TYPES = new Set(['text', 'input_text', 'output_text']);

function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function imageBlock(url: string): ConverseBlock {
  const match = IMAGE_DATA_URL.exec(url);
  if (!match) return { text: `(image URL: ${url})` };
  const format = match[1].toLowerCase() === 'jpg' ? 'jpeg' : match[1].toLowerCase();
  return { image: { format, source: { bytes: Uint8Array.from(Buffer.from(match[2], 'base64')) } } };
}

/** Content → Converse blocks: text, images from data URLs, already-Converse blocks kept; no blank text block (Converse rejects them). */
function contentBlocks(content: Message['content'], forToolResult = false): ConverseBlock[] {
  if (content === null || content === undefined || typeof content === 'string') {
    return [{ text: typeof content === 'string' && content.trim() !== '' ? content : EMPTY_CONTENT_PLACEHOLDER }];
  }
  const blocks: ConverseBlock[] = [];
  for (const item of content as unknown[]) {
    if (!isRecord(item)) {
      blocks.push({ text: String(item) });
      continue;
    }
    if ((typeof item.type === 'string' && TEXT_TYPES.has(item.type)) || typeof item.text === 'string') {
      if (typeof item.text === 'string' && item.text.trim() !== '') blocks.push({ text: item.text });
      continue;
    }
    if (item.type === 'image_url' && isRecord(item.image_url) && typeof item.image_url.url === 'string') {
      blocks.push(imageBlock(item.image_url.url));
      continue;
    }
    const native = ['image', 'document', 'video', 'json', 'searchResult'].find((key) => key in item);
    if (native) blocks.push({ [native]: item[native] });
    else blocks.push(forToolResult ? { json: item } : { text: JSON.stringify(item) });
  }
  return blocks.length > 0 ? blocks : [{ text: EMPTY_CONTENT_PLACEHOLDER }];
}

/**
 * A stored thinking block → Converse `reasoningContent`: signed reasoning byte-exact, redacted
 * reasoning as its bytes; unsigned reasoning is not sent back (Converse rejects it).
 */
function reasoningBlock(block: Json): ConverseBlock | undefined {
  if (block.type !== 'thinking' && block.type !== 'reasoning' && block.type !== 'redacted_thinking') return undefined;
  const text = typeof block.thinking === 'string' ? block.thinking : typeof block.text === 'string' ? block.text : undefined;
  if (text && typeof block.signature === 'string' && block.signature !== '') return { reasoningContent: { reasoningText: { text, signature: block.signature } } };
  const redacted = typeof block.redactedContentBase64 === 'string' ? block.redactedContentBase64 : typeof block.data === 'string' && block.type === 'redacted_thinking' ? block.data : undefined;
  if (redacted !== undefined) return { reasoningContent: { redactedContent: Uint8Array.from(Buffer.from(redacted, 'base64')) } };
  return undefined;
}

function assistantBlocks(message: Message): ConverseBlock[] {
  const blocks: ConverseBlock[] = [];
  for (const thinking of message.thinking_blocks ?? []) {
    const block = isRecord(thinking) ? reasoningBlock(thinking) : undefined;
    if (block) blocks.push(block);
  }
  const content = message.content;
  if (typeof content === 'string' && content.trim() !== '') blocks.push({ text: content });
  else if (Array.isArray(content)) blocks.push(...contentBlocks(content).filter((b) => 'text' in b && b.text !== EMPTY_CONTENT_PLACEHOLDER));
  for (const call of message.tool_calls ?? []) {
    if (!isRecord(call) || !isRecord(call.function)) continue;
    blocks.push({ toolUse: { toolUseId: String(call.id ?? ''), name: String(call.function.name ?? ''), input: toolArgumentsObjectForReplay(call.function.arguments) } });
  }
  return blocks.length > 0 ? blocks : [{ text: EMPTY_CONTENT_PLACEHOLDER }];
}

/**
 * Our messages → Converse `system` and `messages`, on a copy: system and developer messages
 * become system blocks, tool results `toolResult` blocks in a user message, assistant turns
 * signed reasoning + text + `toolUse`; consecutive messages of one role are merged into one (the
 * wire format has one message per turn). Which turns are legal to send is the governor's
 * `'bedrock'` target, not this converter's.
 */
export function toConverseMessages(messages: readonly Message[]): { system: ConverseBlock[]; messages: ConverseMessage[] } {
  const system: ConverseBlock[] = [];
  const out: ConverseMessage[] = [];
  const push = (role: 'user' | 'assistant', blocks: ConverseBlock[]): void => {
    const last = out[out.length - 1];
    if (last && last.role === role) last.content.push(...blocks);
    else out.push({ role, content: blocks });
  };
  for (const message of sanitizeEmptyContent(messages)) {
    if (message.role === 'system' || message.role === 'developer') {
      system.push(...contentBlocks(message.content).filter((b) => 'text' in b));
    } else if (message.role === 'tool') {
      push('user', [{ toolResult: { toolUseId: String(message.tool_call_id ?? ''), content: contentBlocks(message.content, true), status: 'success' } }]);
    } else if (message.role === 'assistant') {
      push('assistant', assistantBlocks(message));
    } else {
      push('user', contentBlocks(message.content));
    }
  }
  return { system, messages: out };
}

function toolSpecs(tools: readonly ToolDefinition[]): ConverseBlock[] {
  return tools
    .filter((tool) => tool.function?.name)
    .map((tool) => {
      const spec: Json = { name: tool.function.name, inputSchema: { json: tool.function.parameters ?? { type: 'object', properties: {} } } };
      if (tool.function.description) spec.description = tool.function.description;
      return { toolSpec: spec };
    });
}

function hasToolBlocks(messages: readonly ConverseMessage[]): boolean {
  return messages.some((m) => m.content.some((b) => 'toolUse' in b || 'toolResult' in b));
}

/** Claude models on Bedrock whose only thinking mode is adaptive (a budget is refused). */
const ADAPTIVE_ONLY = ['claude-opus-4-7'];

/**
 * The Converse / ConverseStream input for `request`: `modelId`, `system`, `messages`,
 * `inferenceConfig` (`maxTokens`, `temperature`), `toolConfig` (tools and `toolChoice`; a
 * history holding tool blocks without tools declares a no-op tool, since Converse refuses tool
 * blocks without a `toolConfig`) and `additionalModelRequestFields`. Pure.
 */
export function buildConverseInput(request: LLMRequest, modelId: string, options: ConverseParamOptions = {}): Record<string, unknown> {
  const { system, messages } = toConverseMessages(request.messages);
  const input: Record<string, unknown> = { modelId, messages };
  if (system.length > 0) input.system = system;
  const inference: Json = {};
  const maxTokens = request.maxTokens ?? options.defaultMaxTokens;
  if (maxTokens !== undefined) inference.maxTokens = Math.max(1, maxTokens);
  const adaptive = ADAPTIVE_ONLY.some((token) => modelId.toLowerCase().includes(token));
  const temperature = request.temperature ?? options.defaultTemperature;
  if (temperature !== undefined && !adaptive) inference.temperature = temperature;
  if (Object.keys(inference).length > 0) input.inferenceConfig = inference;

  const additional: Json = {};
  const effort = request.reasoningEffort?.toLowerCase();
  if (adaptive && effort && effort !== 'none') additional.thinking = effort === 'adaptive' ? { type: 'adaptive' } : { type: 'adaptive', effort };
  Object.assign(additional, options.additionalModelRequestFields, request.extraBody);
  if (Object.keys(additional).length > 0) input.additionalModelRequestFields = additional;

  const tools = toolSpecs(request.tools ?? []);
  if (tools.length > 0) {
    const toolConfig: Json = { tools };
    const choice = request.toolChoice ?? 'auto';
    if (choice === 'required') toolConfig.toolChoice = { any: {} };
    else if (typeof choice === 'object') toolConfig.toolChoice = { tool: { name: choice.name } };
    else if (choice === 'auto') toolConfig.toolChoice = { auto: {} };
    if (choice !== 'none') input.toolConfig = toolConfig;
  } else if (hasToolBlocks(messages)) {
    input.toolConfig = { tools: [{ toolSpec: { name: 'nanobot_noop', description: 'Placeholder: the history holds tool calls but this request offers no tools.', inputSchema: { json: { type: 'object', properties: {} } } } }] };
  }
  return input;
}
