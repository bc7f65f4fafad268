import type { LLMResponse } from '@nanobot/schema';
import { emptyAnswerAction } from './policies/empty-answer.js';
import { lengthContinuation } from './policies/length-continuation.js';

/** Finishes with which requested tool calls are run. */
const EXECUTABLE_FINISH: readonly string[] = Object.freeze(['tool_calls', 'function_call', 'stop']);

/** Whether the response is a tool turn: calls to run, with a finish that allows running them. Pure. */
export function isToolTurn(response: LLMResponse): boolean {
  return response.toolCalls.length > 0 && EXECUTABLE_FINISH.includes(response.finishReason);
}

/** What an answer (a response that is not a tool turn) calls for, in the order the rules apply. */
export type AnswerVerdict =
  /** Empty: ask again, silently. */
  | { kind: 'retry_empty' }
  /** Empty again: one request without tools asking for the answer. */
  | { kind: 'finalize_empty' }
  /** Cut off by the reply limit: ask for the continuation. */
  | { kind: 'continue_length' }
  /** The request failed. */
  | { kind: 'failed' }
  /** Still empty: the turn ends without an answer. */
  | { kind: 'empty_final' }
  /** An answer. */
  | { kind: 'answer' };

/** What {@link classifyAnswer} looks at besides the response. */
export interface AnswerContext {
  /** The answer's text after the `finalizeContent` hooks. */
  text: string;
  /** Empty answers met so far (since the last tool turn). */
  emptyRetries: number;
  /** Cut-off segments kept so far in the turn. */
  lengthSegments: number;
  /** The empty-answer rule already ran for this turn (this is the no-tools request's answer). */
  emptyHandled: boolean;
}

/**
 * Classifies an answer: the empty-answer rule first, then length continuation, a failed request,
 * an answer still empty, else a plain answer. Pure.
 */
export function classifyAnswer(response: LLMResponse, context: AnswerContext): AnswerVerdict {
  if (!context.emptyHandled) {
    const empty = emptyAnswerAction(response.finishReason, context.text, context.emptyRetries);
    if (empty === 'retry') return { kind: 'retry_empty' };
    if (empty === 'finalize') return { kind: 'finalize_empty' };
  }
  if (lengthContinuation(response, context.lengthSegments) !== null) return { kind: 'continue_length' };
  if (response.finishReason === 'error') return { kind: 'failed' };
  if (context.text.trim() === '') return { kind: 'empty_final' };
  return { kind: 'answer' };
}
