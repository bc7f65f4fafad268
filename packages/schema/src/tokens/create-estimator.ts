import { ValidationError } from '../errors/errors.js';
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
import { messageCacheEntry } from './message-cache-entry.js';
import { TextCounts } from './text-counts.js';
import { messageRecord, resumeWalk, walkStep, type PrefixWalks } from './prefix-walks.js';
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

/**
 * Stored count of one message, cached on its entry (negative: counted by the byte heuristic,
 * stored as −(n + 1)).
 */
function storedCount(record: Record<string, unknown>, tokenizer: TokenizerName, texts: TextCounts): number {
  const entry = messageCacheEntry(record);
  const hit = tokenizer === 'cl100k_base' ? entry.cl100k : tokenizer === 'o200k_base' ? entry.o200k : entry.claude;
  if (hit !== undefined) return hit;
  const view = providerMessageView(record, tokenizer === 'claude');
  const [text, heuristic] = texts.count(view.texts);
  const n = view.fixed + (heuristic ? text : scaleTextTokens(tokenizer, text));
  const stored = heuristic ? -(n + 1) : n;
  if (tokenizer === 'cl100k_base') entry.cl100k = stored;
  else if (tokenizer === 'o200k_base') entry.o200k = stored;
  else entry.claude = stored;
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

// The walks over growing histories per tokenizer, kept to resume (see prefix-walks.ts): the
// running total after each message (negative as in {@link storedCount} once any count was heuristic).
const walks: PrefixWalks<number>[] = [new WeakMap(), new WeakMap(), new WeakMap()];

/** `[sum of message counts, any heuristic]`, resuming a kept walk over the same prefix. */
function messagesSum(messages: readonly Message[], tokenizer: TokenizerName, texts: TextCounts, sameObjects: boolean): [number, boolean] {
  const n = messages.length;
  if (n === 0) return [0, false];
  const [walk, k] = resumeWalk(walks[SLOT[tokenizer]], messages, sameObjects);
  const sums = walk.states;
  let total = k > 0 ? decode(sums[k - 1]) : 0;
  let heuristic = k > 0 && sums[k - 1] < 0;
  for (let i = k; i < n; i++) {
    const r = messageRecord(messages[i], `estimatePromptTokens: messages[${i}]`);
    const stored = storedCount(r, tokenizer, texts);
    total += decode(stored);
    if (stored < 0) heuristic = true;
    walkStep(walk, r, heuristic ? -(total + 1) : total);
  }
  return [total, heuristic];
}

class ProviderEstimator implements TokenEstimator {
  readonly mode = 'provider' as const;
  /** Counts of the texts this estimator counted lately: a copy of a message counts only what changed. */
  readonly #texts: TextCounts;

  constructor(readonly tokenizer: TokenizerName) {
    this.#texts = new TextCounts(encodingOf(tokenizer));
  }

  promptTokens(messages: readonly Message[], tools?: readonly object[] | null, options?: PromptEstimateOptions): [number, TokenSource] {
    if (!Array.isArray(messages)) throw new ValidationError('estimatePromptTokens: messages must be an array');
    const [sum, heuristicMessages] = messagesSum(messages, this.tokenizer, this.#texts, options?.sameObjectsSameValues === true);
    const toolsStoredCount = toolsStored(tools, this.tokenizer);
    if (messages.length === 0 && toolsStoredCount === 0) return [0, 'tiktoken'];
    const total = REPLY_PRIMING_TOKENS + sum + decode(toolsStoredCount);
    return [total, heuristicMessages || toolsStoredCount < 0 ? 'heuristic' : 'tiktoken'];
  }

  messageTokens(message: Message): number {
    return decode(storedCount(messageRecord(message, 'messageTokens'), this.tokenizer, this.#texts));
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
