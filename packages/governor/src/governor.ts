// createGovernor: a governor that keeps, per conversation, what a caller of the one-shot
// `govern()` must thread by hand — the cut plan, the compacted tool-call ids of the current run,
// the usage calibrator — and the memos that let every request resume from the previous one.
import type { Message } from '@nanobot/schema';
import { ValidationError } from '@nanobot/schema';
import { governWith } from './govern.js';
import { checkOptions, type GovernOptions, type GovernResult } from './govern-options.js';
import type { Conversation } from './incremental/memo-store.js';
import { DEFAULT_MAX_CONVERSATIONS, GovernorMemos } from './incremental/memo-store.js';
import { registerMemos } from './incremental/governor-memos-registry.js';
import type { MessageLike } from './message-like.js';
import { ownedHistory, type GovernorHistory } from './governor-history.js';
import { createUsageCalibrator, usageCalibratorFromJSON, type UsageCalibrator, type UsageCalibratorState } from './sizing/usage-calibrator.js';
import type { CutPlan } from './steps/cut/cut-plan.js';

/** Options of {@link createGovernor}: defaults for every call, and how much it keeps. */
export interface GovernorOptions extends GovernOptions {
  /** Conversations kept (least recently used forgotten beyond). Default 256. */
  maxConversations?: number;
  /**
   * `false`: keep no memos (every call runs every step in full; results are the same). The
   * carried state (cut plan, compacted ids, calibrator) is kept either way. Default `true`.
   */
  memos?: boolean;
}

/**
 * Per-call options of {@link Governor.govern}: `govern`'s options over the Governor's defaults.
 * `sessionKey` names the conversation (and the offload bucket, as in `govern`); without one the
 * conversation is recognised by its opening messages (the messages up to the first user
 * message). `cutPlan`, `compactedToolCallIds` and `calibrator` default to the conversation's.
 */
export type GovernorCallOptions = GovernOptions;

/** What a Governor carries for one conversation, as plain JSON (to store with the session). */
export interface GovernorSessionState {
  version: 1;
  /** The last request's cut plan (null: none). */
  cutPlan: CutPlan | null;
  /** The conversation's calibrator (null: none observed yet, or the Governor's own is used). */
  calibrator: UsageCalibratorState | null;
}

/** A governor with per-conversation state; see {@link createGovernor}. */
export interface Governor {
  /**
   * `govern(history, options)` for the conversation `history` belongs to: its cut plan,
   * compacted ids (per run: reset when a new user message starts one) and calibrator are passed
   * unless the call gives its own, and the result's are kept for its next request. Same throws
   * as `govern`, and ValidationError for a GovernorHistory another Governor created. Never
   * mutates `history`; `result.messages` is never a GovernorHistory's own array.
   */
  govern<M extends MessageLike = Message>(history: readonly M[] | GovernorHistory<M>, options?: GovernorCallOptions): GovernResult<M>;
  /**
   * A history that only grows (by its `append`), holding a copy of `messages`, for this
   * Governor's `govern`: governing it skips the pass that proves an array's earlier messages
   * were not replaced, so a request costs what was appended since the last one, not the length of
   * the history (a long session over its budget). Same results as governing `toArray()`. Throws
   * ValidationError when an entry of `messages` is not an object.
   */
  createHistory<M extends MessageLike = Message>(messages?: readonly M[]): GovernorHistory<M>;
  /**
   * Records what the provider billed for the conversation's last governed request
   * (`usage.inputTokens`), so later requests of a `model` are sized by the calibrated count.
   * Returns whether the observation was used (see `UsageCalibrator.observe`); false when the
   * conversation has no governed request with a `model` yet. Uses the Governor's `calibrator`
   * option when it has one, else one per conversation.
   */
  observeUsage(usage: { sessionKey?: string | null; inputTokens: number }): boolean;
  /** The carried state of a conversation (plain JSON), or undefined when it is not kept. */
  sessionState(sessionKey: string): GovernorSessionState | undefined;
  /** Restores a conversation's carried state (from {@link sessionState}); throws ValidationError for bad state. */
  restoreSession(sessionKey: string, state: GovernorSessionState): void;
  /** Forgets a conversation: its carried state and its memos. Returns whether it was kept. */
  forget(sessionKey: string): boolean;
  /** How many conversations are kept now. */
  readonly size: number;
}

interface Carried {
  cutPlan: CutPlan | null;
  /** Index of the last user message when `compacted` was started (the run it belongs to). */
  runStart: number;
  compacted: Set<string>;
  calibrator: UsageCalibrator | null;
  /** The last request's estimate and model, for observeUsage. */
  lastEstimate: number | null;
  lastModel: string | null;
}

function fresh(): Carried {
  return { cutPlan: null, runStart: -1, compacted: new Set(), calibrator: null, lastEstimate: null, lastModel: null };
}

function lastUserIndex(history: readonly MessageLike[]): number {
  for (let i = history.length - 1; i >= 0; i--) if ((history[i] as { role?: unknown } | null)?.role === 'user') return i;
  return -1;
}

class GovernorImpl implements Governor {
  readonly #defaults: GovernOptions;
  readonly #memos: GovernorMemos<Carried>;
  readonly #useMemos: boolean;
  #last: Conversation<Carried> | null = null;
  /** The array behind each history this Governor created (see governor-history.ts). */
  readonly #histories = new WeakMap<object, Message[]>();

  constructor(options: GovernorOptions) {
    const { maxConversations, memos, ...defaults } = options;
    if (maxConversations !== undefined && (typeof maxConversations !== 'number' || !(maxConversations >= 1))) {
      throw new ValidationError(`createGovernor: options.maxConversations must be a number >= 1, got ${JSON.stringify(maxConversations)}`, ['maxConversations']);
    }
    if (memos !== undefined && typeof memos !== 'boolean') throw new ValidationError('createGovernor: options.memos must be a boolean', ['memos']);
    checkOptions(defaults);
    this.#defaults = defaults;
    this.#memos = new GovernorMemos<Carried>(maxConversations ?? DEFAULT_MAX_CONVERSATIONS);
    this.#useMemos = memos !== false;
    registerMemos(this, this.#memos as GovernorMemos<unknown>);
  }

  get size(): number {
    return this.#memos.size;
  }

  createHistory<M extends MessageLike = Message>(messages: readonly M[] = []): GovernorHistory<M> {
    const { history, items } = ownedHistory(messages);
    // Its array grows only by appending: the memos' copies of it stay valid without a pass.
    this.#memos.clock.markAppendOnly(items as unknown as Message[]);
    this.#histories.set(history, items as unknown as Message[]);
    return history;
  }

  govern<M extends MessageLike = Message>(given: readonly M[] | GovernorHistory<M>, options: GovernorCallOptions = {}): GovernResult<M> {
    if (Array.isArray(given) || given === null || typeof given !== 'object') return this.#govern(given as readonly M[], options);
    const items = this.#histories.get(given);
    if (items === undefined) throw new ValidationError('Governor.govern: history must be an array or a GovernorHistory this Governor created');
    const result = this.#govern(items as unknown as readonly M[], options);
    // The array is the history's own: the caller gets a copy.
    return result.messages === (items as unknown) ? { ...result, messages: items.slice() as unknown as M[] } : result;
  }

  #govern<M extends MessageLike>(history: readonly M[], options: GovernorCallOptions): GovernResult<M> {
    if (options === null || typeof options !== 'object' || Array.isArray(options)) checkOptions(options);
    const given: GovernOptions = { ...this.#defaults, ...options };
    if (!Array.isArray(history) || history.length === 0) return governWith(this.#useMemos ? this.#memos : null, history, given);
    // Before a conversation is kept for it: bad options govern nothing.
    checkOptions(given);
    const key = typeof given.sessionKey === 'string' ? given.sessionKey : null;
    const conversation = this.#memos.conversation(history as unknown as readonly Message[], key);
    const carried = (conversation.state ??= fresh());
    const runStart = lastUserIndex(history);
    if (runStart !== carried.runStart) {
      carried.runStart = runStart;
      carried.compacted = new Set();
    }
    const call: GovernOptions = { ...given };
    if (call.cutPlan === undefined) call.cutPlan = carried.cutPlan;
    if (call.compactedToolCallIds === undefined) call.compactedToolCallIds = carried.compacted;
    if (call.calibrator === undefined && carried.calibrator !== null) call.calibrator = carried.calibrator;
    const result = governWith(this.#useMemos ? this.#memos : null, history, call, this.#useMemos ? conversation as Conversation<unknown> : undefined);
    carried.cutPlan = result.cutPlan;
    carried.lastEstimate = result.report.tokensEstimated ?? result.report.tokensAfter ?? null;
    carried.lastModel = typeof call.model === 'string' && call.model.length > 0 ? call.model : null;
    this.#last = conversation;
    return result;
  }

  observeUsage(usage: { sessionKey?: string | null; inputTokens: number }): boolean {
    if (usage === null || typeof usage !== 'object') throw new ValidationError('observeUsage: usage must be an object { sessionKey?, inputTokens }');
    const key = usage.sessionKey;
    const conversation = typeof key === 'string' ? this.#memos.peek(key) : this.#last;
    const carried = conversation?.state;
    if (carried === undefined || carried.lastEstimate === null || carried.lastModel === null) return false;
    const shared = this.#defaults.calibrator;
    let calibrator: UsageCalibrator;
    if (shared !== undefined && shared !== null) {
      // A calibrator of the caller's own that cannot learn is fed by the caller.
      if (typeof (shared as Partial<UsageCalibrator>).observe !== 'function') return false;
      calibrator = shared as UsageCalibrator;
    } else {
      carried.calibrator ??= createUsageCalibrator();
      calibrator = carried.calibrator;
    }
    return calibrator.observe({ model: carried.lastModel, estimated: carried.lastEstimate, actual: usage.inputTokens });
  }

  sessionState(sessionKey: string): GovernorSessionState | undefined {
    const carried = this.#memos.peek(sessionKey)?.state;
    if (carried === undefined) return undefined;
    return { version: 1, cutPlan: carried.cutPlan, calibrator: carried.calibrator?.toJSON() ?? null };
  }

  restoreSession(sessionKey: string, state: GovernorSessionState): void {
    if (state === null || typeof state !== 'object' || state.version !== 1) throw new ValidationError('restoreSession: state must be a GovernorSessionState (version 1)', ['state']);
    checkOptions({ cutPlan: state.cutPlan });
    const calibrator = state.calibrator === null || state.calibrator === undefined ? null : usageCalibratorFromJSON(state.calibrator);
    const conversation = this.#memos.conversation([], sessionKey);
    const carried = (conversation.state ??= fresh());
    carried.cutPlan = state.cutPlan ?? null;
    carried.calibrator = calibrator;
  }

  forget(sessionKey: string): boolean {
    return this.#memos.forget(sessionKey);
  }
}

/**
 * A governor that carries each conversation's state between requests: pass
 * `{ sessionKey }` (or let it recognise the conversation by its opening messages) and it
 * threads the cut plan (stable cuts, so the provider's prompt cache keeps hitting), the
 * compacted tool-call ids of the current run and the usage calibrator itself, and resumes every
 * step from the previous request (a history rebuilt from storage with equal messages resumes
 * too). `options` are defaults for every call (`govern`'s options), plus `maxConversations`
 * (an LRU bound, default 256) and `memos: false` (no memos). Throws `ValidationError` for bad
 * options. `govern()` is the one-shot function over a default Governor that carries nothing.
 */
export function createGovernor(options: GovernorOptions = {}): Governor {
  if (options === null || typeof options !== 'object' || Array.isArray(options)) throw new ValidationError('createGovernor: options must be an object');
  return new GovernorImpl(options);
}
