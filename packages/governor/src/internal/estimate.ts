// Token estimates the governor uses, all from @nanobot/schema (exact reference counts, cached
// per message object there).
import { estimatePromptTokensChain, estimatePromptTokensWithSource, type Message, type TokenCounter, type ToolDefinition } from '@nanobot/schema';

/** What every budget-aware step needs to estimate a prompt. */
export interface EstimateContext {
  /** Tool definitions sent with the request; their JSON counts against the budget. */
  tools?: readonly object[] | null;
  /** An exact provider counter, tried first (may throw: the estimate is used then). */
  tokenCounter?: TokenCounter | null;
  /** Estimates already made in this governance pass, by list identity (lists are never mutated). */
  estimateCache?: Map<readonly Message[], number>;
}

/** Reference `estimate_prompt_tokens_chain(...)[0]`. */
export function promptTokens(messages: readonly Message[], ctx: EstimateContext): number {
  const hit = ctx.estimateCache?.get(messages);
  if (hit !== undefined) return hit;
  const n = estimatePromptTokensChain(ctx.tokenCounter ?? null, messages, (ctx.tools ?? null) as readonly ToolDefinition[] | null)[0];
  ctx.estimateCache?.set(messages, n);
  return n;
}

/** Internal estimate of one message as a prompt of its own (for cheap deltas). */
export function isolatedTokens(message: Message): number {
  return estimatePromptTokensWithSource([message], null)[0];
}
