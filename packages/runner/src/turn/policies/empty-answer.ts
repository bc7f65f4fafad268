/** Finishes whose empty answer is not retried: the empty text has another cause, handled on its own. */
const NOT_RETRIED_FINISH: readonly string[] = Object.freeze(['error', 'length', 'refusal', 'content_filter']);

/** What to do about an answer: `none` (not empty), `retry` (once, silently), `finalize` (one request without tools). */
export type EmptyAnswerAction = 'none' | 'retry' | 'finalize';

/**
 * The empty-answer rule (runner.md §3): an empty answer (after the `finalizeContent` hooks) is
 * retried once silently; the next empty answer of the run gets one request without tools that
 * asks for the answer. `retries`: empty answers met so far in the run since the last tool turn.
 * Pure.
 */
export function emptyAnswerAction(finishReason: string, text: string, retries: number): EmptyAnswerAction {
  if (NOT_RETRIED_FINISH.includes(finishReason) || text.trim() !== '') return 'none';
  return retries === 0 ? 'retry' : 'finalize';
}
