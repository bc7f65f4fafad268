import { turnFailureRow } from '@nanobot/schema';
import { DEFAULT_ERROR_MESSAGE, EMPTY_FINAL_RESPONSE_MESSAGE } from '../../runner-texts.js';
import type { TurnEnding } from '../turn-ending.js';

/** What the failed-request rule looks at. */
export interface FailedRequest {
  /** The runner's text of a request that failed (`Error calling LLM: …`), or null for an error finish. */
  errorText: string | null;
  /** The response's content (an error finish may carry the provider's words). */
  content: string | null;
  /** Text streamed before the request failed. */
  partial: string;
  /** The spec's `errorMessage` (the final text when there is no error text). */
  errorMessage: string | null | undefined;
  /** Whether the transcript already ends with an assistant answer. */
  closed: boolean;
}

/**
 * The error-placeholder rule: a failed request ends the turn with stop reason `error`. Text
 * streamed before a broken stream is kept as an interrupted answer; otherwise the failure is
 * stored as what it is (a `turnFailureRow`, no text), so the model is never shown a reply it
 * did not give, unless the turn is already closed by an answer. Injected input resumes the turn.
 * Pure.
 */
export function failedTurn(request: FailedRequest): TurnEnding {
  const text = request.errorText ?? (request.content && request.content.trim() !== '' ? request.content : null);
  const finalContent = text ?? request.errorMessage ?? DEFAULT_ERROR_MESSAGE;
  const error = text ?? finalContent;
  // Streamed text is kept only when the stream broke; an error *response* streams its error text.
  const partial = request.errorText !== null ? request.partial : '';
  const rows = partial.trim() !== '' ? [{ role: 'assistant', content: partial, _interrupted: true }] : request.closed ? [] : [turnFailureRow('model_error', error)];
  return { stopReason: 'error', finalContent, error, rows, injected: 'resume' };
}

/** The empty-final-response rule: still empty after the retries, the turn ends saying so. Pure. */
export function emptyFinalTurn(): TurnEnding {
  return {
    stopReason: 'empty_final_response',
    finalContent: EMPTY_FINAL_RESPONSE_MESSAGE,
    error: EMPTY_FINAL_RESPONSE_MESSAGE,
    rows: [{ role: 'assistant', content: EMPTY_FINAL_RESPONSE_MESSAGE }],
    injected: 'resume',
  };
}

/** The fail-fast rule (subagents' `failOnToolError`): the first failing tool ends the turn. Pure. */
export function toolFailureTurn(fatal: string): TurnEnding {
  return { stopReason: 'tool_error', finalContent: fatal, error: fatal, rows: [{ role: 'assistant', content: fatal }], injected: 'continue' };
}
