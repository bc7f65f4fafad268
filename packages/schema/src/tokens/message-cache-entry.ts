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
   * The provider estimators' counts per tokenizer, once one counted; negative: counted by the
   * byte heuristic, stored as −(n + 1). Fields of the entry, not a list beside it: every message
   * a provider estimator counts has an entry, and a second object per entry was ~70 bytes more
   * for each new message of a growing history to keep (and for the young-generation collector
   * to copy), twice for a target that renames ids.
   */
  cl100k: number | undefined;
  o200k: number | undefined;
  claude: number | undefined;
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
    cl100k: undefined,
    o200k: undefined,
    claude: undefined,
  };
  entries.set(record, entry);
  return entry;
}
