// Token estimates the governor uses, all from @nanobot/schema (cached per message object there):
// the reference's count with `compat: 'reference'`, the provider-view count otherwise.
import { estimatePromptTokensChain, referenceEstimator, type Message, type TokenCounter, type TokenEstimator, type ToolDefinition } from '@nanobot/schema';

/** What every budget-aware step needs to estimate a prompt. */
export interface EstimateContext {
  /** Tool definitions sent with the request; their JSON counts against the budget. */
  tools?: readonly object[] | null;
  /** An exact provider counter, tried first (may throw: the estimate is used then). */
  tokenCounter?: TokenCounter | null;
  /** Estimates already made in this governance pass, by list identity (lists are never mutated). */
  estimateCache?: Map<readonly Message[], number>;
  /** How prompts are estimated when there is no counter (default: the reference's estimate). */
  estimator?: TokenEstimator | null;
}

/** Reference `estimate_prompt_tokens_chain(...)[0]`, with the context's estimator. */
export function promptTokens(messages: readonly Message[], ctx: EstimateContext): number {
  const hit = ctx.estimateCache?.get(messages);
  if (hit !== undefined) return hit;
  const n = estimatePromptTokensChain(ctx.tokenCounter ?? null, messages, (ctx.tools ?? null) as readonly ToolDefinition[] | null, ctx.estimator ?? null)[0];
  ctx.estimateCache?.set(messages, n);
  return n;
}

/** Estimate of one message as a prompt of its own (for cheap deltas). */
export function isolatedTokens(message: Message, ctx: EstimateContext = {}): number {
  return (ctx.estimator ?? referenceEstimator).promptTokens([message], null)[0];
}

/** Tokens one message adds to a prompt (reference `estimate_message_tokens` by default). */
export function messageTokens(message: Message, ctx: EstimateContext = {}): number {
  return (ctx.estimator ?? referenceEstimator).messageTokens(message);
}
