// Token estimates the governor uses, all from @nanobot/schema (cached per message object there):
// the reference's count with `compat: 'reference'`, the provider-view count otherwise. The
// governor treats messages as values (its other memos are keyed by message objects too), so a
// re-estimate recognises a history by its objects alone.
import { estimatePromptTokensChain, referenceEstimator, type Message, type TokenCounter, type TokenEstimator, type ToolDefinition } from '@nanobot/schema';
import { ListSnapshot } from '../incremental/list-snapshot.js';

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

const SAME_OBJECTS = { sameObjectsSameValues: true } as const;

interface KnownEstimate {
  list: ListSnapshot;
  estimator: TokenEstimator | null;
  tools: readonly object[] | null;
  toolItems: readonly object[];
  tokens: number;
}

// The last estimates per history (keyed by its first message): a govern call estimates its
// input and a copy or two (backfilled, merged turns), and the next call the same lists again.
// Recognising a list by a pass over two pointer arrays is cheaper than the schema's walk memo,
// which also holds each message's fields. Only without an exact counter (whose answers are not
// ours to keep).
const KNOWN_PER_HEAD = 3;
const known = new WeakMap<Message, KnownEstimate[]>();

function sameTools(entry: KnownEstimate, tools: readonly object[] | null, estimator: TokenEstimator | null): boolean {
  if (entry.tools !== tools || entry.estimator !== estimator) return false;
  if (tools === null) return true;
  return tools.length === entry.toolItems.length && tools.every((t, i) => t === entry.toolItems[i]);
}

function estimateOf(messages: readonly Message[], tools: readonly object[] | null, estimator: TokenEstimator | null): number {
  const head = messages[0];
  let entries = known.get(head);
  if (entries === undefined) {
    entries = [];
    known.set(head, entries);
  }
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i];
    if (sameTools(e, tools, estimator) && e.list.equals(messages)) {
      e.list.update(messages, messages.length); // no copying: marks it as seen in this call
      if (i > 0) entries.unshift(...entries.splice(i, 1));
      return e.tokens;
    }
  }
  const tokens = estimatePromptTokensChain(null, messages, tools as readonly ToolDefinition[] | null, estimator, SAME_OBJECTS)[0];
  // A grown list replaces the entry of the list it grew from (only the new slots are copied).
  let slot = -1;
  for (let i = 0; i < entries.length; i++) if (entries[i].list.mayPrefix(messages) && (slot < 0 || entries[i].list.length > entries[slot].list.length)) slot = i;
  if (slot < 0 && entries.length >= KNOWN_PER_HEAD) slot = entries.length - 1;
  const reused = slot >= 0 ? entries.splice(slot, 1)[0].list : new ListSnapshot();
  reused.update(messages, reused.commonPrefix(messages));
  entries.unshift({ list: reused, estimator, tools, toolItems: tools === null ? [] : [...tools], tokens });
  return tokens;
}

/** Reference `estimate_prompt_tokens_chain(...)[0]`, with the context's estimator. */
export function promptTokens(messages: readonly Message[], ctx: EstimateContext): number {
  const hit = ctx.estimateCache?.get(messages);
  if (hit !== undefined) return hit;
  const counter = ctx.tokenCounter ?? null;
  const tools = ctx.tools ?? null;
  const n = counter === null && messages.length > 0
    ? estimateOf(messages, tools, ctx.estimator ?? null)
    : estimatePromptTokensChain(counter, messages, tools as readonly ToolDefinition[] | null, ctx.estimator ?? null, SAME_OBJECTS)[0];
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
