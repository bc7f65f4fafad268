// Token estimates the governor uses, all from @nanobot/schema (cached per message object there):
// the reference's count with `compat: 'reference'`, the provider-view count otherwise. The
// governor treats messages as values, so a re-estimate may recognise a list by its objects alone
// (the Governor's estimate memo does).
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
  /** Estimates kept from earlier calls (without an exact counter, whose answers are not ours to keep). */
  memo?: EstimateMemo | null;
}

const SAME_OBJECTS = { sameObjectsSameValues: true } as const;

/**
 * Remembers prompt estimates across calls (the Governor's, in incremental/): `compute` is the
 * estimate of `messages` with `tools` and `estimator`, called only when the memo does not know
 * the list. Synchronous; must return what `compute` would.
 */
export interface EstimateMemo {
  estimate(messages: readonly Message[], tools: readonly object[] | null, estimator: TokenEstimator | null, compute: () => number): number;
}

/** Reference `estimate_prompt_tokens_chain(...)[0]`, with the context's estimator. */
export function promptTokens(messages: readonly Message[], ctx: EstimateContext): number {
  const hit = ctx.estimateCache?.get(messages);
  if (hit !== undefined) return hit;
  const counter = ctx.tokenCounter ?? null;
  const tools = ctx.tools ?? null;
  const compute = (): number => estimatePromptTokensChain(counter, messages, tools as readonly ToolDefinition[] | null, ctx.estimator ?? null, SAME_OBJECTS)[0];
  const n = counter === null && messages.length > 0 && ctx.memo ? ctx.memo.estimate(messages, tools, ctx.estimator ?? null, compute) : compute();
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
