import type { CacheBreakpoints } from '@nanobot/schema';

const MESSAGE_BOUNDARIES = ['instructions', 'cut', 'previous', 'last'] as const;

/**
 * The planned prompt-cache breakpoints of one request, read from a governor's report
 * (`report.cacheBoundaries` of the default governor; a custom `govern` may report anything, so
 * only well-formed indices into the request's `messageCount` messages are kept). `tools` is
 * kept only when the request sends tools. Undefined when the report names no boundaries: the
 * provider then keeps its own placement.
 */
export function cacheBreakpointsOf(report: unknown, messageCount: number, hasTools: boolean): CacheBreakpoints | undefined {
  const raw = typeof report === 'object' && report !== null ? (report as { cacheBoundaries?: unknown }).cacheBoundaries : undefined;
  if (typeof raw !== 'object' || raw === null) return undefined;
  const source = raw as Record<string, unknown>;
  const out: CacheBreakpoints = {};
  if (hasTools && source.tools === true) out.tools = true;
  for (const name of MESSAGE_BOUNDARIES) {
    const v = source[name];
    if (typeof v === 'number' && Number.isInteger(v) && v >= 0 && v < messageCount) out[name] = v;
  }
  return out;
}

/** `{ cacheBreakpoints }` for an `LLMRequest` when the report plans any, else `{}` (for spreading). */
export function cacheBreakpointsField(report: unknown, messageCount: number, hasTools: boolean): { cacheBreakpoints?: CacheBreakpoints } {
  const planned = cacheBreakpointsOf(report, messageCount, hasTools);
  return planned !== undefined ? { cacheBreakpoints: planned } : {};
}
