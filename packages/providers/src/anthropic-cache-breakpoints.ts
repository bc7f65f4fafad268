import type { CacheBreakpoints, Message } from '@nanobot/schema';

type Block = Record<string, unknown>;

/** The most `cache_control` breakpoints one Messages API request may carry. */
export const ANTHROPIC_MAX_CACHE_BREAKPOINTS = 4;

/**
 * Which planned boundaries win when there are more than four, best first:
 * - `last`: the only breakpoint that writes the whole prompt, for the next request to read;
 * - `previous`: reads exactly what the previous request wrote at its `last`, however many
 *   blocks were added since (the API looks back only about 20 blocks from a breakpoint);
 * - `instructions`: tools and system survive any change to the history (a moved cut, a
 *   compacted result), the commonest miss;
 * - `tools`: the tool definitions survive a changed system prompt (memory, skills);
 * - `cut`: one message past `instructions`, so within the lookback of that breakpoint's
 *   prefix and worth the least on its own; it gets a slot when another boundary is absent.
 */
export const ANTHROPIC_BREAKPOINT_PRIORITY = ['last', 'previous', 'instructions', 'tools', 'cut'] as const;

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
  const sites: BreakpointSite[] = [];
  const seen = new Set<string>();
  for (const name of ANTHROPIC_BREAKPOINT_PRIORITY) {
    if (sites.length >= ANTHROPIC_MAX_CACHE_BREAKPOINTS) break;
    let site: BreakpointSite | null = null;
    if (name === 'tools') {
      if (plan.tools === true && toolCount > 0) site = { kind: 'tool', index: toolCount - 1 };
    } else {
      const i = plan[name];
      if (typeof i !== 'number' || !Number.isInteger(i) || i < 0 || i >= messages.length) continue;
      const role = messages[i]?.role;
      if (role === 'system' || role === 'developer') {
        const p = prefixEnd(lists.system, i);
        if (p >= 0) site = { kind: 'system', index: p };
      } else {
        const p = prefixEnd(lists.turns, i);
        if (p >= 0) site = { kind: 'turn', turn: lists.turns.turns[p], index: lists.turns.offsets[p] };
      }
    }
    if (site === null) continue;
    const key = site.kind === 'turn' ? `turn:${site.turn}:${site.index}` : `${site.kind}:${site.index}`;
    if (seen.has(key)) continue;
    seen.add(key);
    sites.push(site);
  }
  return sites;
}
