import type { PromptSegment } from './prompt-segment.js';

/**
 * What the token estimates cache for one message object. Both estimates read these six fields
 * (the reference's ignores `role`), so one entry serves both; it stays valid while the fields are the same values
 * (identity), so replacing a field (`msg.content = …`) starts a new entry. Mutating a content
 * list in place is not seen: messages are treated as values.
 */
export interface MessageCacheEntry {
  readonly role: unknown;
  readonly content: unknown;
  readonly toolCalls: unknown;
  readonly reasoning: unknown;
  readonly name: unknown;
  readonly toolCallId: unknown;
  /** The message's prompt segment (`null`: no parts; `undefined`: not built yet). */
  segment: PromptSegment | null | undefined;
  /** `estimateMessageTokens` of the message, once computed. */
  tokens: number | undefined;
  /**
   * The provider estimators' counts by tokenizer slot (cl100k_base, o200k_base, claude), once
   * one counted; negative: counted by the byte heuristic, stored as −(n + 1).
   */
  counts: [number | undefined, number | undefined, number | undefined] | undefined;
}

// Keyed weakly by the message object: an entry goes when its message goes.
const entries = new WeakMap<object, MessageCacheEntry>();

// Whether `entry` was made for the current field values of `record`.
function entryMatches(entry: MessageCacheEntry, record: Record<string, unknown>): boolean {
  return (
    entry.content === record['content'] &&
    entry.role === record['role'] &&
    entry.toolCalls === record['tool_calls'] &&
    entry.reasoning === record['reasoning_content'] &&
    entry.name === record['name'] &&
    entry.toolCallId === record['tool_call_id']
  );
}

/** The cache entry of a message record, replaced by an empty one when its fields changed. */
export function messageCacheEntry(record: Record<string, unknown>): MessageCacheEntry {
  const hit = entries.get(record);
  if (hit !== undefined && entryMatches(hit, record)) return hit;
  const entry: MessageCacheEntry = {
    role: record['role'],
    content: record['content'],
    toolCalls: record['tool_calls'],
    reasoning: record['reasoning_content'],
    name: record['name'],
    toolCallId: record['tool_call_id'],
    segment: undefined,
    tokens: undefined,
    counts: undefined,
  };
  entries.set(record, entry);
  return entry;
}
