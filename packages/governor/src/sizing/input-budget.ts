import { DEFAULT_MAX_OUTPUT_TOKENS, SNIP_SAFETY_BUFFER } from '../constants.js';

/** What {@link inputBudget} reads. */
export interface InputBudgetOptions {
  /** The model's context window; without one, compaction and snipping are off (budget 0). */
  contextWindowTokens?: number | null;
  /** Tokens reserved for the reply. */
  maxOutputTokens?: number | null;
  /** The provider's default reply size, used when `maxOutputTokens` is not a number. */
  providerMaxTokens?: number | null;
  /** Replaces the computed budget when set and non-zero (reference semantics: an override, not a cap). */
  contextBlockLimit?: number | null;
  /**
   * The reserve when neither reply size is set: `'reference'` (default) the reference's 4096
   * tokens whatever the window; `'window'` (govern's default mode) {@link windowReplyReserve}.
   */
  replyReserveDefault?: 'reference' | 'window';
}

/** Where the reply reserve came from (`report.replyReserve.source`). */
export type ReplyReserveSource = 'maxOutputTokens' | 'providerMaxTokens' | 'model' | 'window' | 'reference-default';

/** The tokens kept for the reply, and where the number came from. */
export interface ReplyReserve {
  tokens: number;
  source: ReplyReserveSource;
}

/**
 * The default reply reserve of govern's default mode when no reply size is known (no
 * `maxOutputTokens`, no `providerMaxTokens`, no model in the table): an eighth of the window,
 * rounded up to 256 tokens, between 512 and 8192 — 1,024 of an 8k window, 2,048 of 16k, 4,096 of
 * 32k (the reference's fixed number), 8,192 from 64k on. Pure.
 */
export function windowReplyReserve(contextWindowTokens: number): number {
  const eighth = Math.ceil(Math.max(0, contextWindowTokens) / 8 / 256) * 256;
  return Math.min(8192, Math.max(512, eighth));
}

/** The reply reserve {@link inputBudget} subtracts, and its source ('model' is the caller's to tell). */
export function replyReserve(options: InputBudgetOptions): ReplyReserve {
  if (isInt(options.maxOutputTokens)) return { tokens: options.maxOutputTokens, source: 'maxOutputTokens' };
  if (isInt(options.providerMaxTokens)) return { tokens: options.providerMaxTokens, source: 'providerMaxTokens' };
  if (options.replyReserveDefault === 'window' && isInt(options.contextWindowTokens)) return { tokens: windowReplyReserve(options.contextWindowTokens), source: 'window' };
  return { tokens: DEFAULT_MAX_OUTPUT_TOKENS, source: 'reference-default' };
}

const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/**
 * Tokens the prompt may use (reference `input_budget`): `contextBlockLimit` when set, else
 * window − reply reservation ({@link replyReserve}) − 1024; never below 0, and 0 when there is
 * no window.
 */
export function inputBudget(options: InputBudgetOptions): number {
  const window = options.contextWindowTokens;
  if (!window) return 0;
  const maxOutput = replyReserve(options).tokens;
  const budget = options.contextBlockLimit ? options.contextBlockLimit : window - maxOutput - SNIP_SAFETY_BUFFER;
  return Math.max(Math.trunc(budget), 0);
}
