// The memos of the one-shot `govern()`: one default Governor's, made on first use. The only
// process-wide state of the governor, and it lives here (incremental/): a one-shot call
// resumes from the previous call on the same conversation exactly as a Governor does.
import { GovernorMemos } from './memo-store.js';

/** Conversations the one-shot govern() keeps before the least recently used one is forgotten. */
const DEFAULT_GOVERN_CONVERSATIONS = 64;

let memos: GovernorMemos<unknown> | null = null;

/** The default Governor's memos. */
export function defaultMemos(): GovernorMemos<unknown> {
  memos ??= new GovernorMemos(DEFAULT_GOVERN_CONVERSATIONS);
  return memos;
}
