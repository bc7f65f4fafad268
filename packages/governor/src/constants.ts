// Constants and model-visible strings of the reference governor (governance.md, "Constants").

/** Tokens kept free between the input budget and the window besides the output reservation. */
export const SNIP_SAFETY_BUFFER = 1024;
/** Tool results shorter than this (characters) are never compacted. */
export const MICROCOMPACT_MIN_CHARS = 500;
/** Compaction stops once the estimate is at or below this share of the budget. */
export const INFLIGHT_COMPACT_TARGET_RATIO = 0.85;
/** Tools whose results may be replaced by the compaction note under context pressure. */
export const COMPACTABLE_TOOLS: ReadonlySet<string> = new Set([
  'read_file', 'exec', 'grep', 'find_files', 'web_search', 'web_fetch', 'list_dir', 'list_exec_sessions',
]);
/** Tools never offloaded: `read_file` is how the model reads an offloaded result back. */
export const TOOL_RESULT_OFFLOAD_EXEMPT_TOOLS: ReadonlySet<string> = new Set(['read_file']);
/** Content of a synthetic result for a call that never got one. */
export const BACKFILL_CONTENT = '[Tool result unavailable \u2014 call was interrupted or lost]';
/** Assistant contents that stand for an omitted message. */
export const PLACEHOLDER_TEXTS: ReadonlySet<string> = new Set(['[Previous assistant message omitted.]']);
/** Characters of an offloaded result shown inline. */
export const TOOL_RESULT_PREVIEW_CHARS = 1200;
/** Where offloaded results go, relative to the workspace. */
export const TOOL_RESULTS_DIR = '.nanobot/tool-results';
/** Buckets (session folders) untouched for longer than this are deleted. */
export const TOOL_RESULT_RETENTION_SECONDS = 7 * 24 * 3600;
/** At most this many buckets are kept, the current one included. */
export const TOOL_RESULT_MAX_BUCKETS = 32;
/** Default per-result size limit in characters. */
export const DEFAULT_MAX_TOOL_RESULT_CHARS = 16000;
/** Output reservation used when neither the caller nor the provider names one. */
export const DEFAULT_MAX_OUTPUT_TOKENS = 4096;
/** The older microcompaction's keep-recent count (opt-in here, removed from the reference). */
export const MICROCOMPACT_KEEP_RECENT = 10;

/** The note that replaces a compacted in-flight tool result. */
export function compactionMessage(name: string): string {
  return (
    `Error: The previous ${name} result was compacted to fit context because it was too large. ` +
    'Do not repeat the same call unchanged. Retry with a narrower path, query, range, or result limit, ' +
    'use another tool, or tell the user the task cannot fit in the available context.'
  );
}

/** The marker for a tool that returned nothing. */
export function emptyResultMessage(name: string): string {
  return `(${name} completed with no output)`;
}
