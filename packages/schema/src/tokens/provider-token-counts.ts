// The provider-view count of a message and of tool definitions: each text as the provider
// tokenises it (content, tool-call names and their raw `arguments` strings, ids), plus the
// per-message overheads OpenAI documents in its token-counting cookbook. Unlike the reference
// estimate, nothing is JSON-escaped again or joined with its neighbours.
import { countWithEncoding, type EncodingName } from '../tokenizer/encoding-counter.js';
import { isRecord } from '../util/is-record.js';
import type { TokenizerName } from '../models/model-info.js';
import { utf8Length } from '../tokenizer/tokenizer.js';

/** Tokens every message costs besides its texts (`<|start|>{role}…<|end|>`; OpenAI cookbook). */
export const TOKENS_PER_MESSAGE = 3;
/** Extra tokens for a message's `name` field (OpenAI cookbook). */
export const TOKENS_PER_NAME = 1;
/** Tokens that prime the reply (`<|start|>assistant<|message|>`; OpenAI cookbook). */
export const REPLY_PRIMING_TOKENS = 3;
/** Framing of one tool call besides its id, name and arguments (not documented; our assumption). */
export const TOKENS_PER_TOOL_CALL = 3;
/**
 * Claude's tokenizer is not public. Measured comparisons put it 16–30% above GPT-4o's o200k
 * (prose at the low end, code at the high end), and cl100k counts a little above o200k, so a
 * Claude text is estimated as its cl100k count × 1.2, rounded up. Calibration from billed
 * usage refines this per model.
 */
export const CLAUDE_TOKEN_FACTOR = 1.2;
/** Anthropic's documented tool-use system prompt (Claude 4 models, `tool_choice` auto/none). */
export const CLAUDE_TOOL_SYSTEM_PROMPT_TOKENS = 346;
/**
 * An image part whose size the message does not say: a 1024×1024 image at OpenAI's high detail
 * (85 + 4 tiles × 170); Claude bills (width × height) / 750, about 1,600 at its size limit.
 */
export const IMAGE_PART_TOKENS = { openai: 765, claude: 1_600 } as const;

/** What the provider tokenises of one message: texts (counted one by one) and fixed tokens. */
export interface ProviderMessageView {
  texts: string[];
  fixed: number;
}

function pushText(texts: string[], value: unknown): void {
  if (typeof value === 'string') {
    if (value.length > 0) texts.push(value);
  } else if (value !== null && value !== undefined) {
    texts.push(JSON.stringify(value) ?? '');
  }
}

/**
 * The provider view of a message record (the fields our providers send: role, content,
 * name, tool_call_id, reasoning_content, tool_calls). Images count as a fixed size; other
 * non-text parts as their JSON. Pure.
 */
export function providerMessageView(message: Record<string, unknown>, claude: boolean): ProviderMessageView {
  const texts: string[] = [];
  let fixed = TOKENS_PER_MESSAGE;
  pushText(texts, message['role']);
  const content = message['content'];
  if (Array.isArray(content)) {
    for (const part of content) {
      if (isRecord(part) && part['type'] === 'text') pushText(texts, part['text']);
      else if (isRecord(part) && (part['type'] === 'image_url' || part['type'] === 'image')) fixed += claude ? IMAGE_PART_TOKENS.claude : IMAGE_PART_TOKENS.openai;
      else pushText(texts, part);
    }
  } else {
    pushText(texts, content);
  }
  const name = message['name'];
  if (typeof name === 'string' && name.length > 0) {
    texts.push(name);
    fixed += TOKENS_PER_NAME;
  }
  pushText(texts, message['tool_call_id']);
  pushText(texts, message['reasoning_content']);
  const calls = message['tool_calls'];
  if (Array.isArray(calls)) {
    for (const call of calls) {
      fixed += TOKENS_PER_TOOL_CALL;
      if (!isRecord(call)) {
        pushText(texts, call);
        continue;
      }
      pushText(texts, call['id']);
      const fn = call['function'];
      if (isRecord(fn)) {
        pushText(texts, fn['name']);
        // The raw arguments string, as the model wrote it: not escaped again.
        pushText(texts, fn['arguments']);
      } else {
        pushText(texts, fn);
      }
    }
  } else {
    pushText(texts, calls);
  }
  return { texts, fixed };
}

/**
 * `[tokens, heuristic]`: texts counted in `encoding` (UTF-8 bytes only when tiktoken is switched
 * off for tests). Throws `TokenizerNotLoadedError` where the ranks need `await loadTokenizer()`.
 */
export function countTexts(encoding: EncodingName, texts: readonly string[]): [number, boolean] {
  let total = 0;
  let heuristic = false;
  for (const text of texts) {
    const n = countWithEncoding(encoding, text);
    if (n === null) {
      heuristic = true;
      total += utf8Length(text);
    } else {
      total += n;
    }
  }
  return [total, heuristic];
}

/** The encoding a tokenizer counts its texts with (Claude's is estimated from cl100k). */
export function encodingOf(tokenizer: TokenizerName): EncodingName {
  return tokenizer === 'o200k_base' ? 'o200k_base' : 'cl100k_base';
}

/** Text tokens as `tokenizer` counts them, from the count in {@link encodingOf}. */
export function scaleTextTokens(tokenizer: TokenizerName, encodingTokens: number): number {
  return tokenizer === 'claude' ? Math.ceil(encodingTokens * CLAUDE_TOKEN_FACTOR) : encodingTokens;
}

function stripDot(text: string): string {
  return text.endsWith('.') ? text.slice(0, -1) : text;
}

function typeText(type: unknown): string {
  if (typeof type === 'string') return type;
  if (Array.isArray(type)) return type.map(String).join(' | ');
  return '';
}

/**
 * Tool definitions as OpenAI renders them, per its cookbook (`num_tokens_for_tools`): per
 * function 7 + `name:description`, per property 3 + `key:type:description` (enums 3 per item
 * − 3), 3 before the properties and 12 after all functions. Nested schemas, which the
 * cookbook does not cover, add their JSON. Returns the fixed part and the texts to count.
 */
export function openAIToolsView(tools: readonly unknown[]): ProviderMessageView {
  const texts: string[] = [];
  let fixed = 0;
  if (tools.length === 0) return { texts, fixed };
  for (const tool of tools) {
    const fn = isRecord(tool) && isRecord(tool['function']) ? tool['function'] : isRecord(tool) ? tool : {};
    fixed += 7;
    const name = typeof fn['name'] === 'string' ? fn['name'] : '';
    const description = typeof fn['description'] === 'string' ? fn['description'] : '';
    texts.push(`${name}:${stripDot(description)}`);
    const params = isRecord(fn['parameters']) ? fn['parameters'] : isRecord(fn['input_schema']) ? fn['input_schema'] : {};
    const props = isRecord(params['properties']) ? params['properties'] : {};
    const keys = Object.keys(props);
    if (keys.length === 0) continue;
    fixed += 3;
    for (const key of keys) {
      fixed += 3;
      const prop = isRecord(props[key]) ? props[key] : {};
      const { type, description: propDescription, enum: values, ...rest } = prop;
      if (Array.isArray(values)) {
        fixed -= 3;
        for (const value of values) {
          fixed += 3;
          texts.push(typeof value === 'string' ? value : JSON.stringify(value) ?? '');
        }
      }
      texts.push(`${key}:${typeText(type)}:${stripDot(typeof propDescription === 'string' ? propDescription : '')}`);
      if (Object.keys(rest).length > 0) texts.push(JSON.stringify(rest));
    }
  }
  fixed += 12;
  return { texts, fixed };
}
