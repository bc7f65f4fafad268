import type { Message } from '@nanobot/schema';
import { findLegalMessageStart } from '@nanobot/governor';
import { getHistory, type GetHistoryOptions } from './get-history.js';
import { localIsoTimestamp } from './local-time.js';
import { recentMessageStartIndex } from './recent-message-start-index.js';

/** What a session is created from; everything but the key is optional. */
export interface SessionInit {
  key: string;
  messages?: Message[];
  createdAt?: string;
  updatedAt?: string;
  metadata?: Record<string, unknown>;
  lastConsolidated?: unknown;
  providerState?: unknown;
}

/** Validates a persisted `last_consolidated`: a non-negative integer no larger than the message count, else 0. */
export function normalizeLastConsolidated(value: unknown, messageCount: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > messageCount) return 0;
  return value;
}

/**
 * One conversation: an append-mostly list of OpenAI-style messages plus metadata.
 * `lastConsolidated` counts the leading messages already summarised into memory/history.jsonl.
 * Stores append what was added since the last save; operations that remove or replace
 * messages bump `structureVersion` so a store knows it has to rewrite the file instead.
 */
export class Session {
  readonly key: string;
  messages: Message[];
  createdAt: string;
  updatedAt: string;
  metadata: Record<string, unknown>;
  lastConsolidated: number;
  /** Opaque provider continuation state (persisted as the `provider_state` record), or null. */
  providerState: unknown;
  /** Incremented whenever messages are removed or replaced (not on append). */
  structureVersion = 0;
  private readonly clock: () => Date;

  constructor(init: SessionInit, now: () => Date = () => new Date()) {
    this.key = init.key;
    this.clock = now;
    this.messages = init.messages ?? [];
    const stamp = localIsoTimestamp(now());
    this.createdAt = init.createdAt ?? stamp;
    this.updatedAt = init.updatedAt ?? this.createdAt;
    this.metadata = init.metadata ?? {};
    this.lastConsolidated = normalizeLastConsolidated(init.lastConsolidated, this.messages.length);
    this.providerState = init.providerState ?? null;
  }

  /** Appends `{role, content, timestamp, ...extra}` and bumps `updatedAt`; returns the new message. */
  addMessage(role: string, content: Message['content'], extra: Record<string, unknown> = {}, now: Date = this.clock()): Message {
    const timestamp = localIsoTimestamp(now);
    const message: Message = { role, content, timestamp, ...extra };
    this.messages.push(message);
    this.updatedAt = timestamp;
    return message;
  }

  /**
   * Replaces the message list (and clamps the pointer); stores rewrite the file on the next save.
   * Use this (or `clear`/`retainRecentLegalSuffix`) for any change other than appending: a store
   * only appends what lies beyond the messages it already wrote.
   */
  replaceMessages(messages: Message[]): void {
    this.messages = messages;
    this.lastConsolidated = Math.min(this.lastConsolidated, messages.length);
    this.structureVersion += 1;
  }

  /** Replayable history for the model (see {@link getHistory}); the session is not modified. */
  getHistory(options: GetHistoryOptions = {}): Message[] {
    return getHistory(this, options);
  }

  /** Empties the session: messages, pointer, provider state and the stored archived summary. */
  clear(now: Date = this.clock()): void {
    this.messages = [];
    this.lastConsolidated = 0;
    this.providerState = null;
    if ('_last_summary' in this.metadata) {
      const { _last_summary: _dropped, ...rest } = this.metadata;
      this.metadata = rest;
    }
    this.updatedAt = localIsoTimestamp(now);
    this.structureVersion += 1;
  }

  /**
   * Keeps only a legal recent suffix of at most `maxMessages` messages (no leading orphan tool
   * results); `lastConsolidated` becomes the number of retained messages that were already
   * archived; provider state is cleared when anything was dropped. `0` clears the session.
   * Returns the dropped messages.
   */
  retainRecentLegalSuffix(maxMessages: number, extendToUser = false): Message[] {
    if (maxMessages <= 0) {
      const dropped = this.messages;
      this.clear();
      return dropped;
    }
    let start = recentMessageStartIndex(this.messages, maxMessages, extendToUser);
    start += findLegalMessageStart(this.messages.slice(start));
    if (start <= 0) return [];
    const dropped = this.messages.slice(0, start);
    this.messages = this.messages.slice(start);
    this.lastConsolidated = Math.max(0, this.lastConsolidated - start);
    this.providerState = null;
    this.structureVersion += 1;
    return dropped;
  }
}
