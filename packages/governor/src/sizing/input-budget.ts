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
}

const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/**
 * Tokens the prompt may use (reference `input_budget`): `contextBlockLimit` when set, else
 * window − reply reservation − 1024; never below 0, and 0 when there is no window.
 */
export function inputBudget(options: InputBudgetOptions): number {
  const window = options.contextWindowTokens;
  if (!window) return 0;
  const maxOutput = isInt(options.maxOutputTokens)
    ? options.maxOutputTokens
    : isInt(options.providerMaxTokens)
      ? options.providerMaxTokens
      : DEFAULT_MAX_OUTPUT_TOKENS;
  const budget = options.contextBlockLimit ? options.contextBlockLimit : window - maxOutput - SNIP_SAFETY_BUFFER;
  return Math.max(Math.trunc(budget), 0);
}
