import type { CacheBreakpoints } from '@nanobot/schema';
import { isInstructionRole } from '../steps/target/govern-target.js';
import type { MessageLike } from '../message-like.js';

/** What {@link cacheBoundaries} needs besides the governed copy. */
export interface CacheBoundaryOptions {
  /** Whether the request carries tool definitions (their end is a boundary). */
  hasTools: boolean;
  /** Index of the first message kept after the history was cut, or null when nothing was cut. */
  cut: number | null;
}

/**
 * The stable prefix boundaries of a governed copy, for prompt-cache breakpoints (Anthropic's
 * cache order is tools, system, messages): the end of the tools, the last leading instruction,
 * the history cut, the newest message the previous request already ended with, and the last
 * message. The previous request of a growing conversation ended right before the model's latest
 * answer (the last assistant message), so a breakpoint there reads exactly the prefix the
 * previous request wrote with its last-message breakpoint, however many messages came since
 * (Anthropic looks back only about 20 blocks from a breakpoint for an earlier cached prefix).
 *
 * Pure; reads only the leading instructions and the tail after the last assistant message, so a
 * warm call costs no pass over the history.
 */
export function cacheBoundaries(messages: readonly MessageLike[], options: CacheBoundaryOptions): CacheBreakpoints {
  const out: CacheBreakpoints = {};
  if (options.hasTools) out.tools = true;
  const n = messages.length;
  if (n === 0) return out;
  let first = 0;
  while (first < n && isInstructionRole(messages[first].role)) first++;
  if (first > 0) out.instructions = first - 1;
  if (options.cut !== null && options.cut >= 0 && options.cut < n) out.cut = options.cut;
  for (let i = n - 1; i >= first; i--) {
    if (messages[i].role !== 'assistant') continue;
    if (i > 0) out.previous = i - 1;
    break;
  }
  out.last = n - 1;
  return out;
}
