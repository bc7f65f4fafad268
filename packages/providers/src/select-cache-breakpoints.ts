import type { CacheBreakpoints } from '@nanobot/schema';

/** The most `cache_control` breakpoints one request may carry (Anthropic's limit, also behind gateways). */
export const MAX_CACHE_BREAKPOINTS = 4;

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
export const CACHE_BREAKPOINT_PRIORITY = ['last', 'previous', 'instructions', 'tools', 'cut'] as const;

/** Where a provider's conversion puts each planned boundary (null: nowhere). */
export interface BreakpointLocator<Site> {
  /** How many messages the plan's indices point into (larger indices are ignored). */
  messageCount: number;
  /** The site of the `tools` boundary (called only when the plan has one); must not throw. */
  tools: () => Site | null;
  /** The site of the boundary at message `index` (a valid index); must not throw. */
  message: (index: number) => Site | null;
  /** Equal for two sites that are the same place, so a place is marked once. */
  key: (site: Site) => string;
}

/**
 * The sites of the planned breakpoints, at most {@link MAX_CACHE_BREAKPOINTS}, in
 * {@link CACHE_BREAKPOINT_PRIORITY} order, each place once; a boundary that is absent, not an
 * integer index into the messages, or has no site is skipped and leaves its slot to the next.
 */
export function selectCacheBreakpoints<Site>(plan: CacheBreakpoints, locate: BreakpointLocator<Site>): Site[] {
  const sites: Site[] = [];
  const seen = new Set<string>();
  for (const name of CACHE_BREAKPOINT_PRIORITY) {
    if (sites.length >= MAX_CACHE_BREAKPOINTS) break;
    let site: Site | null = null;
    if (name === 'tools') {
      if (plan.tools === true) site = locate.tools();
    } else {
      const i = plan[name];
      if (typeof i !== 'number' || !Number.isInteger(i) || i < 0 || i >= locate.messageCount) continue;
      site = locate.message(i);
    }
    if (site === null) continue;
    const key = locate.key(site);
    if (seen.has(key)) continue;
    seen.add(key);
    sites.push(site);
  }
  return sites;
}
