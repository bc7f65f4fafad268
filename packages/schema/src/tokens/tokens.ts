import { ValidationError } from '../errors/errors.js';
import type { Message } from '../messages/message.js';
import { pythonJsonDumps } from '../python/python-json.js';
import type { ToolDefinition } from '../json-schema/tool-definition.js';
import type { TokenCounter, TokenSource } from './token-counter.js';
import { clearPieceCache, countTokens, getEncoder, utf8Length } from '../tokenizer/tokenizer.js';
import { clearGlueCache, PromptWalker, promptSegmentOf, promptSegmentOfEntry, type WalkState } from './prompt-segments.js';
import { messageCacheEntry } from './message-cache-entry.js';
import { messageRecord, resumeWalk, walkStep, type PrefixWalks } from './prefix-walks.js';
import { pythonTruthy } from '../python/python-truthy.js';
import { isRecord } from '../util/is-record.js';
import type { PromptEstimateOptions } from './estimate-options.js';

/** Per-message overhead the reference adds for role/formatting tokens. */
export const MESSAGE_TOKEN_OVERHEAD = 4;
const TOOLS_CACHE_LIMIT = 64;

function messageEstimatePayload(message: Record<string, unknown>): string {
  const parts: string[] = [];
  const content = message['content'];
  if (typeof content === 'string') {
    parts.push(content);
  } else if (Array.isArray(content)) {
    for (const part of content) {
      if (isRecord(part) && part['type'] === 'text') {
        const text = part['text'];
        if (typeof text === 'string' && text.length > 0) parts.push(text);
      } else {
        parts.push(pythonJsonDumps(part));
      }
    }
  } else if (content !== null && content !== undefined) {
    parts.push(pythonJsonDumps(content));
  }
  const name = message['name'];
  if (typeof name === 'string' && name.length > 0) parts.push(name);
  const toolCallId = message['tool_call_id'];
  if (typeof toolCallId === 'string' && toolCallId.length > 0) parts.push(toolCallId);
  const toolCalls = message['tool_calls'];
  if (pythonTruthy(toolCalls)) parts.push(pythonJsonDumps(toolCalls));
  const reasoning = message['reasoning_content'];
  if (typeof reasoning === 'string' && reasoning.length > 0) parts.push(reasoning);
  return parts.join('\n');
}

/**
 * Estimated tokens of one message (reference `estimate_message_tokens`): content (non-text
 * blocks as their JSON, images included), name, tool_call_id, tool_calls JSON and
 * reasoning_content joined by newlines, cl100k-encoded, plus 4; at least 4. Falls back to UTF-8
 * bytes + 4 when the text holds special-token text (as the reference). Cached per message
 * object. Throws {@link ValidationError} for a non-object message or a cyclic value, and
 * `TokenizerNotLoadedError` where the ranks need `await loadTokenizer()` first (never bytes).
 */
export function estimateMessageTokens(message: Message): number {
  const record = messageRecord(message, 'estimateMessageTokens');
  const entry = messageCacheEntry(record);
  if (entry.tokens !== undefined) return entry.tokens;
  const payload = messageEstimatePayload(record);
  let tokens: number;
  if (payload.length === 0) {
    tokens = MESSAGE_TOKEN_OVERHEAD;
  } else {
    const counted = countTokens(payload);
    tokens = counted === null ? utf8Length(payload) + MESSAGE_TOKEN_OVERHEAD : Math.max(MESSAGE_TOKEN_OVERHEAD, counted + MESSAGE_TOKEN_OVERHEAD);
  }
  entry.tokens = tokens;
  return tokens;
}

interface ToolsEntry {
  items: unknown[];
  json: string;
  withNewline?: number | null;
  withoutNewline?: number | null;
}

// Keyed by the tools list object and checked against its items' identities, like the
// reference; FIFO-bounded so that short-lived lists cannot grow it without limit.
const toolsCache = new Map<object, ToolsEntry>();

function toolsEntry(tools: readonly unknown[]): ToolsEntry {
  const hit = toolsCache.get(tools);
  if (hit !== undefined && hit.items.length === tools.length && hit.items.every((item, i) => item === tools[i])) return hit;
  const entry: ToolsEntry = { items: [...tools], json: pythonJsonDumps(tools) };
  toolsCache.delete(tools);
  toolsCache.set(tools, entry);
  while (toolsCache.size > TOOLS_CACHE_LIMIT) toolsCache.delete(toolsCache.keys().next().value as object);
  return entry;
}

function toolsTokens(entry: ToolsEntry, leadingNewline: boolean): number | null {
  if (leadingNewline) {
    if (entry.withNewline === undefined) entry.withNewline = countTokens(`\n${entry.json}`);
    return entry.withNewline;
  }
  if (entry.withoutNewline === undefined) entry.withoutNewline = countTokens(entry.json);
  return entry.withoutNewline;
}

// The walks over growing histories, kept to resume (see prefix-walks.ts).
const walks: PrefixWalks<WalkState> = new WeakMap();

function walkWithMemo(messages: readonly Message[], objectsOnly: boolean): PromptWalker {
  const n = messages.length;
  const [walk, k] = resumeWalk(walks, messages, objectsOnly);
  const walker = new PromptWalker(k > 0 ? walk.states[k - 1] : undefined);
  for (let i = k; i < n; i++) {
    const record = messageRecord(messages[i], `estimatePromptTokens: messages[${i}]`);
    const segment = promptSegmentOfEntry(messageCacheEntry(record));
    if (segment !== null) walker.push(segment);
    walkStep(walk, record, walker.state());
  }
  return walker;
}

function heuristicEstimate(messages: readonly Message[], entry: ToolsEntry | null): [number, 'heuristic'] {
  // Byte heuristic: the reference's fallback when encoding fails (special-token text) or
  // tiktoken is missing.
  let bytes = 0;
  let segments = 0;
  for (let i = 0; i < messages.length; i++) {
    const segment = promptSegmentOf(messageRecord(messages[i], `estimatePromptTokens: messages[${i}]`));
    if (segment === null) continue;
    bytes += segment.bytes + (segments > 0 ? 1 : 0);
    segments++;
  }
  if (entry !== null) bytes += (bytes > 0 ? 1 : 0) + utf8Length(entry.json);
  return [bytes + MESSAGE_TOKEN_OVERHEAD * messages.length, 'heuristic'];
}

/** Internal prompt estimator: `[tokens, "tiktoken" | "heuristic"]` (reference `_estimate_prompt_tokens_with_source`). */
export function estimatePromptTokensWithSource(
  messages: readonly Message[],
  tools?: readonly ToolDefinition[] | null,
  options?: PromptEstimateOptions,
): [number, 'tiktoken' | 'heuristic'] {
  if (!Array.isArray(messages)) throw new ValidationError('estimatePromptTokens: messages must be an array');
  const hasTools = tools !== null && tools !== undefined && tools.length > 0;
  const entry = hasTools ? toolsEntry(tools) : null;
  if (getEncoder() !== null) {
    let payloadTokens: number | null = 0;
    let hasParts = false;
    if (messages.length > 0) {
      const walker = walkWithMemo(messages, options?.sameObjectsSameValues === true);
      payloadTokens = walker.result();
      hasParts = walker.count > 0;
    }
    const toolTokens = entry === null ? 0 : toolsTokens(entry, hasParts);
    if (payloadTokens !== null && toolTokens !== null) {
      return [payloadTokens + toolTokens + MESSAGE_TOKEN_OVERHEAD * messages.length, 'tiktoken'];
    }
  }
  return heuristicEstimate(messages, entry);
}

/**
 * Estimated tokens of a whole prompt (reference `estimate_prompt_tokens`): text content,
 * tool_calls JSON, reasoning, name and tool_call_id of every message, "\n"-joined and
 * cl100k-encoded, plus the tools' JSON and 4 per message. Images and other non-text blocks are
 * ignored, as in the reference. Returns exactly the number a full encode of the joined payload
 * gives, but incrementally: each message's share is cached on the message object, so
 * re-estimating a grown history only encodes the new messages and a few joins.
 */
export function estimatePromptTokens(messages: readonly Message[], tools?: readonly ToolDefinition[] | null): number {
  return estimatePromptTokensWithSource(messages, tools)[0];
}

function providerCount(counter: TokenCounter | null | undefined, messages: readonly Message[], tools: readonly ToolDefinition[] | null | undefined): [number, TokenSource] | null {
  if (counter === null || counter === undefined) return null;
  const fn = (counter as { countPromptTokens?: unknown }).countPromptTokens;
  if (typeof fn !== 'function') return null;
  let result: unknown;
  try {
    result = (fn as TokenCounter['countPromptTokens']).call(counter, messages, tools ?? null);
  } catch {
    return null; // a failing exact counter must not break governance: use the estimate
  }
  let raw: unknown;
  let source: unknown;
  if (Array.isArray(result)) {
    if (result.length < 1 || result.length > 2) return null;
    [raw, source] = result;
  } else {
    raw = result; // our interface also allows a bare number (deviation from the reference)
  }
  if (typeof raw === 'boolean') raw = raw ? 1 : 0; // Python: bool is an int
  if (typeof raw !== 'number' || Number.isNaN(raw) || !(raw > 0)) return null;
  const tokens = raw === Infinity ? Number.MAX_SAFE_INTEGER : Math.trunc(raw);
  return [tokens, typeof source === 'string' && source.length > 0 ? source : 'provider_counter'];
}

/** What {@link estimatePromptTokensChain} falls back to (a `TokenEstimator` fits). */
export interface PromptEstimate {
  promptTokens(messages: readonly Message[], tools?: readonly object[] | null, options?: PromptEstimateOptions): [number, TokenSource];
}

/**
 * Provider counter first, then the estimate (reference `estimate_prompt_tokens_chain`): a
 * counter result `[n, source?]` (or a bare `n`) with numeric `n > 0` wins as `[trunc(n),
 * source || "provider_counter"]`; a throwing or useless counter is ignored. Otherwise the
 * internal estimate (or `estimator`'s, e.g. from `createEstimator`), or `[0, "none"]` when it is 0.
 */
export function estimatePromptTokensChain(
  counter: TokenCounter | null | undefined,
  messages: readonly Message[],
  tools?: readonly ToolDefinition[] | null,
  estimator?: PromptEstimate | null,
  options?: PromptEstimateOptions,
): [number, TokenSource] {
  const exact = providerCount(counter, messages, tools);
  if (exact !== null) return exact;
  const [tokens, source] = estimator ? estimator.promptTokens(messages, tools, options) : estimatePromptTokensWithSource(messages, tools, options);
  return tokens > 0 ? [tokens, source] : [0, 'none'];
}

/**
 * Empties the shared token-count caches (per text piece and per join window) so a benchmark
 * can measure a cold estimate. Per-message caches are keyed weakly by the message objects and
 * go with them: new message objects always start cold. Numbers never depend on the caches.
 */
export function clearTokenCaches(): void {
  clearPieceCache();
  clearGlueCache();
  toolsCache.clear();
}
