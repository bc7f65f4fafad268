// Server-side compaction anchors (issue 25, item 4). A provider that compacted the conversation
// on its side hands back a block or item that stands for everything before it: Anthropic's
// `compaction` block (threshold and on-demand compaction; "Messages before the compaction
// block are dropped on next request") and the Responses API's `compaction` item (its
// `encrypted_content`; "you can drop items that came before the most recent compaction item").
// In the governor's model such an anchor is a content part of type `compaction` (the block or
// the item itself, carried as is; the dialects put it there) on the message that carries it.
// The cut keeps the newest anchor whenever it keeps anything after it, counts nothing before it
// (the server ignores that part), and no step rewrites the part: it goes back byte-exact.
import type { Message } from '@nanobot/schema';
import { declareCallIds, resultId } from '../../internal/tool-calls.js';

/** How a server compaction anchor decided a cut (the report's `cut.serverCompaction`). */
export type ServerAnchorDecision = 'cut-at-anchor' | 'anchor-kept';

/** Whether a content part is a provider's compaction block or item (`type: 'compaction'`). */
export function isCompactionPart(part: unknown): boolean {
  return part !== null && typeof part === 'object' && !Array.isArray(part) && (part as { type?: unknown }).type === 'compaction';
}

/** Whether `message` carries a server compaction anchor in its content. */
export function isServerAnchor(message: Message): boolean {
  const content = (message as { content?: unknown } | null)?.content;
  return Array.isArray(content) && content.some(isCompactionPart);
}

/** Index of the newest message of `list` that carries a server compaction anchor; -1 when none does. */
export function newestServerAnchor(list: readonly Message[]): number {
  for (let i = list.length - 1; i >= 0; i--) if (isServerAnchor(list[i])) return i;
  return -1;
}

/**
 * End (exclusive) of the anchor's group in `list`: the anchor message at `at` and the tool
 * results right after it that answer its calls (a turn that compacted and then called tools is
 * kept with its results, never answered by backfilled ones).
 */
export function anchorGroupEnd(list: readonly Message[], at: number): number {
  const ids = new Set<string>();
  declareCallIds(list[at], ids);
  let end = at + 1;
  while (end < list.length && list[end].role === 'tool' && ids.has(resultId(list[end]) ?? '')) end++;
  return end;
}

/**
 * `kept` (a sub-list of `list`, in order, by identity) with the newest anchor's group put back
 * in its place when the cut dropped it but kept something after it; the same array when nothing
 * had to change. For the cuts that are not planned with the anchor in view (histories without a
 * user message, the reference's walk).
 */
export function keepServerAnchor(list: readonly Message[], kept: readonly Message[]): { messages: Message[]; decision: ServerAnchorDecision | null } {
  const at = newestServerAnchor(list);
  const same = { messages: kept as Message[], decision: null };
  if (at < 0) return same;
  const keptSet = new Set(kept);
  if (keptSet.has(list[at])) return same;
  const end = anchorGroupEnd(list, at);
  let after = -1;
  for (let i = end; i < list.length; i++) {
    if (keptSet.has(list[i])) {
      after = kept.indexOf(list[i]);
      break;
    }
  }
  if (after < 0) return same;
  const group = list.slice(at, end).filter((m) => !keptSet.has(m));
  return { messages: [...kept.slice(0, after), ...group, ...kept.slice(after)], decision: 'anchor-kept' };
}
