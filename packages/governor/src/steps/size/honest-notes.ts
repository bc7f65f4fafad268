// The texts the default mode puts where it shortened or moved a tool result (issue 29, item 2):
// they say what happened and how to get the rest, and never start with or read as an error, so
// the model does not take a shortened result for a failed call. `compat: 'reference'` keeps the
// reference's wording (constants.ts).
import type { RereadableOutput } from '@nanobot/schema';

/** How every default-mode note about a shortened result starts (also how one is recognised). */
export const SHORTENED_PREFIX = '[output shortened to fit the context: ';

/** `30083` → `30,083`. */
export function formatCount(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

/**
 * The note after (or before) a preview: `[output shortened to fit the context: 2,000 of 30,083
 * characters shown; the full output is at LOC — read it there for the rest]`, or, with nothing
 * saved, how to get the rest by calling again.
 */
export function shortenedNote(shown: number, total: number, location: string | null): string {
  const where = location !== null
    ? `the full output is at ${location} — read it there in parts for the rest`
    : 'the rest was not kept — call the tool again with a narrower query or range for it';
  return `${SHORTENED_PREFIX}${formatCount(shown)} of ${formatCount(total)} characters shown; ${where}]`;
}

/** Where a rereadable result's window starts and how large a page was asked for (from the call's arguments). */
export interface ReadWindow {
  offset: number;
  limit: number | null;
}

/**
 * The hint after a rereadable result cut at a unit boundary: which units were shown and the
 * `offset`/`limit` to read on, e.g. `[output shortened to fit the context: lines 1–120 shown
 * (7,980 of 30,083 characters); to read on, call read_file with offset=121 and limit=120]`.
 */
export function continuationHint(name: string, paging: RereadableOutput, window: ReadWindow, shownUnits: number, shownChars: number, totalChars: number): string {
  const first = window.offset;
  const last = first + Math.max(0, shownUnits - 1);
  const next = first + shownUnits;
  const page = Math.max(1, Math.min(window.limit ?? shownUnits, shownUnits));
  return `${SHORTENED_PREFIX}${paging.unit} ${formatCount(first)}\u2013${formatCount(last)} shown (${formatCount(shownChars)} of ${formatCount(totalChars)} characters); `
    + `to read on, call ${name} with ${paging.offsetParam}=${next} and ${paging.limitParam}=${page}]`;
}

/**
 * What replaces a result compacted under context pressure in the default mode: the call
 * succeeded, its output was left out of this request, and how to see it again.
 */
export function compactedNote(name: string, chars: number, paging: RereadableOutput | null): string {
  const again = paging !== null
    ? `call ${name} again with a smaller ${paging.limitParam} (and ${paging.offsetParam}) to read it in parts`
    : `call ${name} again with a narrower path, query, range or result limit to see what you need`;
  return `[${name} ran successfully; its output (${formatCount(chars)} characters) was left out of this request to fit the context — ${again}]`;
}
