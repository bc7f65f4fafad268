// Everything one Governor remembers between calls: the memos that resume steps, the cache of
// what rules derive from messages, and its conversations (a bounded LRU, each with its last
// input). Nothing here changes what govern returns: a Governor without memos returns the same
// (the property tests compare them step by step and call by call).
import type { Message } from '@nanobot/schema';
import { AlternationMemos } from './alternation-memo.js';
import { AppendedLists } from './appended-lists.js';
import { CallClock } from './call-clock.js';
import { InflightCompactions } from './compaction-memo.js';
import { DialectMemo } from './dialect-memo.js';
import { WeakDerivations } from './derivations.js';
import { KnownEstimates } from './estimate-memo.js';
import { LeadingInstructions } from './leading-instructions.js';
import { InputTracker } from './input-tracker.js';
import { LegalizeMemos } from './legalize-memo.js';
import { PlaceholderMemos } from './placeholder-memo.js';
import { SeparateMemos } from './separate-memo.js';
import { openingFingerprint, openingLength } from './same-content.js';
import { SnipMemos } from './snip-memo.js';
import { ScanMemo } from './structure-scan.js';
import { ToolResultBudgetMemos } from './tool-result-budget-memo.js';
import { ToolResultIndexes } from './tool-result-index.js';
import { UserFirstMemos } from './user-first-memo.js';

/** What a Governor keeps per conversation besides its memos (its cut plan and so on). */
export interface Conversation<S> {
  /** The conversation's last input. */
  readonly input: InputTracker;
  /** The Governor's own state for it (created on first use). */
  state: S | undefined;
}

/** Conversations kept by default before the least recently used one is forgotten. */
export const DEFAULT_MAX_CONVERSATIONS = 256;

/** One Governor's memos and conversations. `S`: what the Governor keeps per conversation. */
export class GovernorMemos<S = unknown> {
  readonly clock = new CallClock();
  readonly derive = new WeakDerivations();
  readonly estimates: KnownEstimates;
  readonly scans: ScanMemo;
  readonly legalize: LegalizeMemos;
  readonly alternation: AlternationMemos;
  readonly userFirst: UserFirstMemos;
  readonly separations: SeparateMemos;
  readonly placeholders: PlaceholderMemos;
  readonly budgets: ToolResultBudgetMemos;
  readonly appended: AppendedLists;
  readonly compactions: InflightCompactions;
  readonly instructions: LeadingInstructions;
  readonly snips: SnipMemos;
  readonly toolResults: ToolResultIndexes;
  /** What dialects keep to convert histories to the governor's model and back. */
  readonly dialects = new DialectMemo();
  readonly #max: number;
  readonly #conversations = new Map<string, Conversation<S>>();
  /**
   * Unkeyed conversations by the first message object they were seen with, and the opening's
   * message objects then (a shortcut: the same objects, the same opening).
   */
  readonly #byHead = new WeakMap<Message, { conversation: Conversation<S>; opening: readonly Message[] }>();

  /** `maxConversations`: how many conversations are kept (least recently used forgotten). */
  constructor(maxConversations = DEFAULT_MAX_CONVERSATIONS) {
    this.#max = Math.max(1, Math.floor(maxConversations));
    this.estimates = new KnownEstimates(this.clock);
    this.scans = new ScanMemo(this.clock);
    this.legalize = new LegalizeMemos(this.clock, this.derive);
    this.alternation = new AlternationMemos(this.clock, this.derive);
    this.userFirst = new UserFirstMemos(this.clock, this.derive);
    this.separations = new SeparateMemos(this.clock, this.derive);
    this.placeholders = new PlaceholderMemos(this.clock, this.derive);
    this.budgets = new ToolResultBudgetMemos(this.clock);
    this.appended = new AppendedLists(this.clock);
    this.compactions = new InflightCompactions(this.clock);
    this.instructions = new LeadingInstructions(this.clock);
    this.snips = new SnipMemos(this.clock, this.instructions);
    this.toolResults = new ToolResultIndexes(this.clock);
  }

  /** How many conversations are kept now. */
  get size(): number {
    return this.#conversations.size;
  }

  /**
   * The conversation `history` belongs to: the one of `sessionKey` when given, else the one whose
   * opening messages it shares (found by the first message object, else by a fingerprint of the
   * opening's content). Created when new; the least recently used beyond the bound is forgotten.
   */
  conversation(history: readonly Message[], sessionKey: string | null): Conversation<S> {
    if (sessionKey !== null) return this.#touch(`key:${sessionKey}`);
    const head = history[0];
    const seen = head === undefined ? undefined : this.#byHead.get(head);
    // The same first object is not enough: a history whose later opening messages changed (a
    // new first user message after the same system prompt) is another conversation.
    const known = seen !== undefined && sameObjects(seen.opening, history) ? seen.conversation : undefined;
    if (known !== undefined && this.#conversations.get(this.#keyOf(known)) === known) {
      this.#touch(this.#keyOf(known));
      return known;
    }
    const conversation = this.#touch(`opening:${openingFingerprint(history)}`);
    if (head !== undefined) this.#byHead.set(head, { conversation, opening: history.slice(0, openingLength(history)) });
    return conversation;
  }

  /** The conversation of `sessionKey` if it is kept (not marked as used). */
  peek(sessionKey: string): Conversation<S> | undefined {
    return this.#conversations.get(`key:${sessionKey}`);
  }

  /** Forgets the conversation of `sessionKey` and the memos of its history. */
  forget(sessionKey: string): boolean {
    const key = `key:${sessionKey}`;
    const c = this.#conversations.get(key);
    if (c === undefined) return false;
    this.#conversations.delete(key);
    const head = c.input.head;
    if (head !== undefined) {
      for (const memo of [this.estimates, this.scans, this.legalize, this.alternation, this.userFirst, this.separations, this.placeholders, this.budgets, this.appended, this.compactions, this.instructions, this.snips, this.toolResults]) memo.forget(head);
    }
    return true;
  }

  /** Forgets every conversation. */
  clear(): void {
    this.#conversations.clear();
  }

  readonly #keys = new WeakMap<Conversation<S>, string>();

  #keyOf(conversation: Conversation<S>): string {
    return this.#keys.get(conversation)!;
  }

  #touch(key: string): Conversation<S> {
    let c = this.#conversations.get(key);
    if (c !== undefined) {
      this.#conversations.delete(key);
    } else {
      c = { input: new InputTracker(this.clock), state: undefined };
      this.#keys.set(c, key);
      if (this.#conversations.size >= this.#max) this.#conversations.delete(this.#conversations.keys().next().value!);
    }
    this.#conversations.set(key, c);
    return c;
  }
}

/**
 * Whether `history`'s opening is exactly the objects of `opening` (so its fingerprint is the
 * one `opening` had: the shortcut answers what the fingerprint would).
 */
function sameObjects(opening: readonly Message[], history: readonly Message[]): boolean {
  if (openingLength(history) !== opening.length) return false;
  for (let i = 0; i < opening.length; i++) if (opening[i] !== history[i]) return false;
  return true;
}
