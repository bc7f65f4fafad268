import { ValidationError } from '../errors/errors.js';
import { isRecord } from '../util/is-record.js';
import type { Message } from '../messages/message.js';
import type { TokenizerName } from '../models/model-info.js';
import {
  CLAUDE_TOOL_SYSTEM_PROMPT_TOKENS,
  countTexts,
  encodingOf,
  openAIToolsView,
  providerMessageView,
  REPLY_PRIMING_TOKENS,
  scaleTextTokens,
} from './provider-token-counts.js';
import type { TokenSource } from './token-counter.js';
import type { ToolDefinition } from '../json-schema/tool-definition.js';
import { estimateMessageTokens, estimatePromptTokensWithSource } from './tokens.js';
import type { PromptEstimateOptions } from './estimate-options.js';

/** How a {@link TokenEstimator} counts: the reference's payload, or the request as the provider sees it. */
export type EstimateMode = 'reference' | 'provider';

/**
 * Estimates prompt sizes for one tokenizer. Additive in provider mode: a prompt is the reply
 * priming, plus each message's `messageTokens`, plus the tools' tokens.
 */
export interface TokenEstimator {
  readonly mode: EstimateMode;
  /** The tokenizer counted with (`'cl100k_base'` in reference mode). */
  readonly tokenizer: TokenizerName;
  /** Tokens of a whole request and where the count came from (`'tiktoken'` or `'heuristic'`). */
  promptTokens(messages: readonly Message[], tools?: readonly object[] | null, options?: PromptEstimateOptions): [number, TokenSource];
  /** Tokens one message adds to a request. */
  messageTokens(message: Message): number;
  /** Tokens the tool definitions add to a request (0 for none). */
  toolsTokens(tools: readonly object[] | null | undefined): number;
}

/** Options of {@link createEstimator}. */
export interface CreateEstimatorOptions {
  /** Default `'cl100k_base'`; `'claude'` is cl100k scaled by `CLAUDE_TOKEN_FACTOR`. */
  tokenizer?: TokenizerName;
  /** Default `'provider'`; `'reference'` is the reference's estimate (cl100k, whatever `tokenizer` says). */
  mode?: EstimateMode;
}

const TOKENIZERS: readonly TokenizerName[] = ['cl100k_base', 'o200k_base', 'claude'];
const SLOT: Record<TokenizerName, number> = { cl100k_base: 0, o200k_base: 1, claude: 2 };

// Per message object: the fields counted (a replaced field starts a new entry) and, per
// tokenizer, its count (negative: counted by the byte heuristic, stored as −(n + 1)).
interface Entry {
  role: unknown;
  content: unknown;
  toolCalls: unknown;
  name: unknown;
  toolCallId: unknown;
  reasoning: unknown;
  counts: [number | undefined, number | undefined, number | undefined];
}
const entries = new WeakMap<object, Entry>();

function asRecord(message: unknown, where: string): Record<string, unknown> {
  if (!isRecord(message)) {
    throw new ValidationError(`${where}: a message must be an object, got ${message === null ? 'null' : Array.isArray(message) ? 'array' : typeof message}`);
  }
  return message;
}

function entryOf(record: Record<string, unknown>): Entry {
  const hit = entries.get(record);
  if (
    hit !== undefined &&
    hit.content === record['content'] &&
    hit.toolCalls === record['tool_calls'] &&
    hit.role === record['role'] &&
    hit.name === record['name'] &&
    hit.toolCallId === record['tool_call_id'] &&
    hit.reasoning === record['reasoning_content']
  ) {
    return hit;
  }
  const entry: Entry = {
    role: record['role'],
    content: record['content'],
    toolCalls: record['tool_calls'],
    name: record['name'],
    toolCallId: record['tool_call_id'],
    reasoning: record['reasoning_content'],
    counts: [undefined, undefined, undefined],
  };
  entries.set(record, entry);
  return entry;
}

/** Stored count of one message (see {@link Entry}). */
function storedCount(record: Record<string, unknown>, tokenizer: TokenizerName): number {
  const entry = entryOf(record);
  const slot = SLOT[tokenizer];
  const hit = entry.counts[slot];
  if (hit !== undefined) return hit;
  const view = providerMessageView(record, tokenizer === 'claude');
  const [text, heuristic] = countTexts(encodingOf(tokenizer), view.texts);
  const n = view.fixed + (heuristic ? text : scaleTextTokens(tokenizer, text));
  const stored = heuristic ? -(n + 1) : n;
  entry.counts[slot] = stored;
  return stored;
}

const decode = (stored: number): number => (stored < 0 ? -stored - 1 : stored);

// Per tools list object (checked against its items), per tokenizer: like the reference's cache.
const toolsCounts = new WeakMap<object, { items: unknown[]; counts: (number | undefined)[] }>();

function toolsStored(tools: readonly object[] | null | undefined, tokenizer: TokenizerName): number {
  if (tools === null || tools === undefined || tools.length === 0) return 0;
  let hit = toolsCounts.get(tools);
  if (hit === undefined || hit.items.length !== tools.length || !hit.items.every((item, i) => item === tools[i])) {
    hit = { items: [...tools], counts: [undefined, undefined, undefined] };
    toolsCounts.set(tools, hit);
  }
  const slot = SLOT[tokenizer];
  const cached = hit.counts[slot];
  if (cached !== undefined) return cached;
  let stored: number;
  if (tokenizer === 'claude') {
    // Anthropic renders tools into its own system prompt (not public): their JSON, plus the
    // documented tool-use prompt.
    const [text, heuristic] = countTexts('cl100k_base', [JSON.stringify(tools)]);
    const n = CLAUDE_TOOL_SYSTEM_PROMPT_TOKENS + (heuristic ? text : scaleTextTokens('claude', text));
    stored = heuristic ? -(n + 1) : n;
  } else {
    const view = openAIToolsView(tools);
    const [text, heuristic] = countTexts(encodingOf(tokenizer), view.texts);
    const n = Math.max(0, view.fixed + text);
    stored = heuristic ? -(n + 1) : n;
  }
  hit.counts[slot] = stored;
  return stored;
}

// Histories grow by appending, so the last walks over a history are kept per first message
// and tokenizer: a re-estimate compares the prefix by identity (message objects and the fields
// counted), resumes where it diverges and only counts the rest.
const STRIDE = 7;
const MEMOS_PER_HEAD = 3;
interface Memo {
  seen: unknown[];
  /** Running total after message i (negative as in {@link Entry} once any count was heuristic). */
  sums: number[];
}
const memos: WeakMap<object, Memo[]>[] = [new WeakMap(), new WeakMap(), new WeakMap()];

function matchLength(memo: Memo, messages: readonly Message[], sameObjects: boolean): number {
  const { seen } = memo;
  const limit = Math.min(messages.length, memo.sums.length);
  let k = 0;
  if (sameObjects) {
    // Messages are values to this caller: the objects alone identify the walk (a pointer pass).
    for (let j = 0; k < limit && seen[j] === messages[k]; k++, j += STRIDE);
    return k;
  }
  for (let j = 0; k < limit; k++, j += STRIDE) {
    const r = messages[k] as Record<string, unknown>;
    if (
      seen[j] !== r ||
      seen[j + 1] !== r['content'] ||
      seen[j + 2] !== r['tool_calls'] ||
      seen[j + 3] !== r['role'] ||
      seen[j + 4] !== r['name'] ||
      seen[j + 5] !== r['tool_call_id'] ||
      seen[j + 6] !== r['reasoning_content']
    ) {
      break;
    }
  }
  return k;
}

/** `[sum of message counts, any heuristic]`, resuming a kept walk over the same prefix. */
function messagesSum(messages: readonly Message[], tokenizer: TokenizerName, sameObjects: boolean): [number, boolean] {
  const n = messages.length;
  if (n === 0) return [0, false];
  const first = asRecord(messages[0], 'estimatePromptTokens: messages[0]');
  const byHead = memos[SLOT[tokenizer]];
  let list = byHead.get(first);
  if (list === undefined) {
    list = [];
    byHead.set(first, list);
  }
  let best = -1;
  let k = 0;
  for (let m = 0; m < list.length; m++) {
    const len = matchLength(list[m], messages, sameObjects);
    if (best < 0 || len > k) {
      best = m;
      k = len;
    }
    if (k === n) break; // the usual warm case: the whole list was walked before
  }
  let memo: Memo;
  if (best >= 0 && (k === n || k + 64 >= list[best].sums.length)) {
    memo = list[best];
    list.splice(best, 1);
  } else {
    const from = best >= 0 ? list[best] : undefined;
    memo = { seen: from ? from.seen.slice(0, k * STRIDE) : [], sums: from ? from.sums.slice(0, k) : [] };
    if (list.length >= MEMOS_PER_HEAD) list.pop();
  }
  list.unshift(memo);
  if (k === n) {
    const s = memo.sums[n - 1];
    return [decode(s), s < 0];
  }
  memo.seen.length = k * STRIDE;
  memo.sums.length = k;
  let total = k > 0 ? decode(memo.sums[k - 1]) : 0;
  let heuristic = k > 0 && memo.sums[k - 1] < 0;
  for (let i = k; i < n; i++) {
    const r = asRecord(messages[i], `estimatePromptTokens: messages[${i}]`);
    const stored = storedCount(r, tokenizer);
    total += decode(stored);
    if (stored < 0) heuristic = true;
    memo.seen.push(r, r['content'], r['tool_calls'], r['role'], r['name'], r['tool_call_id'], r['reasoning_content']);
    memo.sums.push(heuristic ? -(total + 1) : total);
  }
  return [total, heuristic];
}

class ProviderEstimator implements TokenEstimator {
  readonly mode = 'provider' as const;
  constructor(readonly tokenizer: TokenizerName) {}

  promptTokens(messages: readonly Message[], tools?: readonly object[] | null, options?: PromptEstimateOptions): [number, TokenSource] {
    if (!Array.isArray(messages)) throw new ValidationError('estimatePromptTokens: messages must be an array');
    const [sum, heuristicMessages] = messagesSum(messages, this.tokenizer, options?.sameObjectsSameValues === true);
    const toolsStoredCount = toolsStored(tools, this.tokenizer);
    if (messages.length === 0 && toolsStoredCount === 0) return [0, 'tiktoken'];
    const total = REPLY_PRIMING_TOKENS + sum + decode(toolsStoredCount);
    return [total, heuristicMessages || toolsStoredCount < 0 ? 'heuristic' : 'tiktoken'];
  }

  messageTokens(message: Message): number {
    return decode(storedCount(asRecord(message, 'messageTokens'), this.tokenizer));
  }

  toolsTokens(tools: readonly object[] | null | undefined): number {
    if (tools !== null && tools !== undefined && !Array.isArray(tools)) throw new ValidationError('toolsTokens: tools must be an array');
    return decode(toolsStored(tools, this.tokenizer));
  }
}

/** The reference's estimate (`estimate_prompt_tokens`, `estimate_message_tokens`), cl100k. */
export const referenceEstimator: TokenEstimator = {
  mode: 'reference',
  tokenizer: 'cl100k_base',
  promptTokens: (messages, tools, options) => estimatePromptTokensWithSource(messages, (tools ?? null) as readonly ToolDefinition[] | null, options),
  messageTokens: (message) => estimateMessageTokens(message),
  toolsTokens: (tools) => (tools === null || tools === undefined || tools.length === 0 ? 0 : estimatePromptTokensWithSource([], tools as readonly ToolDefinition[])[0]),
};

const providerEstimators = new Map<TokenizerName, TokenEstimator>();

/**
 * A token estimator. In provider mode (the default) every message is counted as the provider
 * tokenises it — text content, tool-call names and raw `arguments` strings (not JSON-escaped
 * again), ids — with OpenAI's documented overheads (3 per message, 1 per name, 3 to prime the
 * reply) and tools as OpenAI renders them; `o200k_base` ranks load on first use, never at
 * import. Counts are cached per message object and tokenizer, and a grown history only counts
 * its new messages. Reference mode is the reference's estimate, unchanged. Throws
 * {@link ValidationError} for an unknown tokenizer or mode.
 */
export function createEstimator(options: CreateEstimatorOptions = {}): TokenEstimator {
  const mode = options.mode ?? 'provider';
  if (mode !== 'provider' && mode !== 'reference') throw new ValidationError(`createEstimator: mode must be 'provider' or 'reference', got ${JSON.stringify(mode)}`);
  const tokenizer = options.tokenizer ?? 'cl100k_base';
  if (!TOKENIZERS.includes(tokenizer)) throw new ValidationError(`createEstimator: tokenizer must be one of ${TOKENIZERS.join(', ')}, got ${JSON.stringify(tokenizer)}`);
  if (mode === 'reference') return referenceEstimator;
  let estimator = providerEstimators.get(tokenizer);
  if (estimator === undefined) {
    estimator = new ProviderEstimator(tokenizer);
    providerEstimators.set(tokenizer, estimator);
  }
  return estimator;
}
