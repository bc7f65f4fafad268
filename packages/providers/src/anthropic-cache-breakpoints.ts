import type { CacheBreakpoints, Message } from '@nanobot/schema';
import { CACHE_BREAKPOINT_PRIORITY, MAX_CACHE_BREAKPOINTS, selectCacheBreakpoints } from './select-cache-breakpoints.js';

type Block = Record<string, unknown>;

/** The most `cache_control` breakpoints one Messages API request may carry. */
export const ANTHROPIC_MAX_CACHE_BREAKPOINTS = MAX_CACHE_BREAKPOINTS;

/** Which planned boundaries win when there are more than four, best first (see `CACHE_BREAKPOINT_PRIORITY`). */
export const ANTHROPIC_BREAKPOINT_PRIORITY = CACHE_BREAKPOINT_PRIORITY;

/** Block types the API lets carry `cache_control` (not thinking, not redacted thinking). */
const CACHEABLE_TYPES = new Set(['text', 'image', 'document', 'search_result', 'tool_use', 'tool_result']);

/** Whether a block may carry `cache_control`: a cacheable type, and text that is not empty. */
export function mayCarryCacheControl(block: Block): boolean {
  if (typeof block.type !== 'string' || !CACHEABLE_TYPES.has(block.type)) return false;
  return block.type !== 'text' || (typeof block.text === 'string' && block.text.trim() !== '');
}

/** Where one breakpoint goes: a tool definition, a system block, or a block of a turn. */
export type BreakpointSite = { kind: 'tool'; index: number } | { kind: 'system'; index: number } | { kind: 'turn'; turn: number; index: number };

/** A converted list of blocks with, for each block, the index of the message it came from (-1: added by the conversion). */
interface SourcedBlocks {
  blocks: readonly Block[];
  sources: readonly number[];
  /** For each block, the turn it is in and its index there (system: turn -1). */
  turns: readonly number[];
  offsets: readonly number[];
}

/**
 * The last block of the longest prefix of `list` holding only blocks from messages `<= i`
 * (conversion may move a tool result before text of an earlier message), moved back to the
 * nearest block that may carry `cache_control`; -1 when there is none.
 */
function prefixEnd(list: SourcedBlocks, i: number): number {
  let p = -1;
  while (p + 1 < list.blocks.length && list.sources[p + 1] <= i) p++;
  while (p >= 0 && !mayCarryCacheControl(list.blocks[p])) p--;
  return p;
}

function flatten(system: readonly Block[], systemSources: readonly number[], turns: readonly { content: readonly Block[] }[], sourceOf: (block: Block) => number): { system: SourcedBlocks; turns: SourcedBlocks } {
  const blocks: Block[] = [];
  const sources: number[] = [];
  const turnOf: number[] = [];
  const offsets: number[] = [];
  turns.forEach((turn, t) => {
    turn.content.forEach((block, j) => {
      blocks.push(block);
      sources.push(sourceOf(block));
      turnOf.push(t);
      offsets.push(j);
    });
  });
  return {
    system: { blocks: system, sources: systemSources, turns: system.map(() => -1), offsets: system.map((_, j) => j) },
    turns: { blocks, sources, turns: turnOf, offsets },
  };
}

/**
 * The sites of the planned breakpoints, at most four, in {@link ANTHROPIC_BREAKPOINT_PRIORITY}
 * order, each once: a message boundary goes on the last block that message contributed (a
 * system message's in `system`), or the nearest block before it that may carry `cache_control`
 * when it contributed none (a dropped empty turn) or only thinking; `tools` on the last tool.
 * Indices out of range are ignored.
 */
export function planAnthropicBreakpoints(
  plan: CacheBreakpoints,
  messages: readonly Message[],
  toolCount: number,
  system: readonly Block[],
  systemSources: readonly number[],
  turns: readonly { content: readonly Block[] }[],
  sourceOf: (block: Block) => number,
): BreakpointSite[] {
  const lists = flatten(system, systemSources, turns, sourceOf);
  return selectCacheBreakpoints<BreakpointSite>(plan, {
    messageCount: messages.length,
    tools: () => (toolCount > 0 ? { kind: 'tool', index: toolCount - 1 } : null),
    message: (i) => {
      const role = messages[i]?.role;
      if (role === 'system' || role === 'developer') {
        const p = prefixEnd(lists.system, i);
        return p >= 0 ? { kind: 'system', index: p } : null;
      }
      const p = prefixEnd(lists.turns, i);
      return p >= 0 ? { kind: 'turn', turn: lists.turns.turns[p], index: lists.turns.offsets[p] } : null;
    },
    key: (site) => (site.kind === 'turn' ? `turn:${site.turn}:${site.index}` : `${site.kind}:${site.index}`),
  });
}
