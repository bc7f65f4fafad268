import { describe, expect, it } from 'vitest';
import type { LLMResponse } from '@nanobot/schema';
import { classifyAnswer, isToolTurn } from './classify-response.js';
import { emptyAnswerAction } from './policies/empty-answer.js';
import { lengthContinuation, joinSegments, MAX_LENGTH_SEGMENTS } from './policies/length-continuation.js';
import { dropMalformed, malformedRetryPrompt } from './policies/malformed-calls.js';
import { emptyFinalTurn, failedTurn, toolFailureTurn } from './policies/failed-turn.js';
import { abortedTurn, answeredTurn } from './turn-ending.js';
import { EMPTY_FINAL_RESPONSE_MESSAGE, MALFORMED_TOOL_CALLS_PROMPT, DEFAULT_ERROR_MESSAGE } from '../runner-texts.js';
import { failureOf } from '@nanobot/schema';

const response = (over: Partial<LLMResponse>): LLMResponse => ({ content: 'x', toolCalls: [], finishReason: 'stop', usage: { inputTokens: 0, outputTokens: 0 }, ...over });
const context = { text: 'an answer', emptyRetries: 0, lengthSegments: 0, emptyHandled: false };

describe('classify: a tool turn or what the answer calls for', () => {
  it('runs calls only with a finish that allows it', () => {
    const calls = [{ id: 'a', name: 'echo', arguments: {} }];
    expect(isToolTurn(response({ toolCalls: calls, finishReason: 'tool_calls' }))).toBe(true);
    expect(isToolTurn(response({ toolCalls: calls, finishReason: 'stop' }))).toBe(true);
    expect(isToolTurn(response({ toolCalls: calls, finishReason: 'length' }))).toBe(false);
    expect(isToolTurn(response({ toolCalls: [], finishReason: 'tool_calls' }))).toBe(false);
  });

  it('applies the rules in order: empty, length, failure, still empty, answer', () => {
    expect(classifyAnswer(response({}), { ...context, text: ' ' })).toEqual({ kind: 'retry_empty' });
    expect(classifyAnswer(response({}), { ...context, text: '', emptyRetries: 1 })).toEqual({ kind: 'finalize_empty' });
    expect(classifyAnswer(response({}), { ...context, text: '', emptyHandled: true })).toEqual({ kind: 'empty_final' });
    expect(classifyAnswer(response({ finishReason: 'length' }), { ...context, text: '' })).toEqual({ kind: 'continue_length' });
    expect(classifyAnswer(response({ finishReason: 'length' }), { ...context, lengthSegments: MAX_LENGTH_SEGMENTS })).toEqual({ kind: 'answer' });
    expect(classifyAnswer(response({ finishReason: 'error' }), { ...context, text: '' })).toEqual({ kind: 'failed' });
    expect(classifyAnswer(response({ finishReason: 'content_filter' }), { ...context, text: '' })).toEqual({ kind: 'empty_final' });
    expect(classifyAnswer(response({}), context)).toEqual({ kind: 'answer' });
  });
});

describe('recovery policies', () => {
  it('empty answer: once silently, then one request without tools; other causes are not retried', () => {
    expect(emptyAnswerAction('stop', '', 0)).toBe('retry');
    expect(emptyAnswerAction('stop', '\n', 1)).toBe('finalize');
    expect(emptyAnswerAction('stop', '\n', 5)).toBe('finalize');
    expect(emptyAnswerAction('stop', 'text', 0)).toBe('none');
    for (const finish of ['error', 'length', 'refusal', 'content_filter']) expect(emptyAnswerAction(finish, '', 0)).toBe('none');
  });

  it('length continuation: keeps the segment and quotes its last 64 characters, three times at most', () => {
    const cut = 'y'.repeat(100) + 'é'.repeat(10);
    const next = lengthContinuation(response({ content: cut, finishReason: 'length' }), 0)!;
    expect(next.segment).toBe(cut);
    expect(next.rows[0]).toEqual({ role: 'assistant', content: cut });
    expect(next.rows[1].role).toBe('user');
    expect(String(next.rows[1].content)).toContain('y'.repeat(54) + 'é'.repeat(10));
    expect(String(next.rows[1].content)).not.toContain('y'.repeat(55));
    expect(lengthContinuation(response({ content: cut, finishReason: 'length' }), MAX_LENGTH_SEGMENTS)).toBeNull();
    expect(lengthContinuation(response({ content: cut }), 0)).toBeNull();
    expect(joinSegments(['a ', 'b '], 'c ')).toBe('a b c');
    expect(joinSegments([], ' c ')).toBe(' c ');
  });

  it('malformed calls: nameless calls are dropped; none left of a tool finish is a retry', () => {
    const mixed = response({ toolCalls: [{ id: '1', name: '', arguments: {} }, { id: '2', name: 'echo', arguments: {} }], finishReason: 'tool_calls' });
    const kept = dropMalformed(mixed);
    expect(kept.allMalformed).toBe(false);
    expect(kept.response.toolCalls.map((c) => c.id)).toEqual(['2']);
    expect(mixed.toolCalls).toHaveLength(2);
    const none = dropMalformed(response({ toolCalls: [{ id: '1', name: '', arguments: {} }], finishReason: 'tool_calls' }));
    expect(none).toMatchObject({ allMalformed: true, response: { finishReason: 'stop', toolCalls: [] } });
    const fine = response({});
    expect(dropMalformed(fine).response).toBe(fine);
    expect(malformedRetryPrompt('  ')).toBe(MALFORMED_TOOL_CALLS_PROMPT);
    expect(malformedRetryPrompt(' said this ')).toBe(`${MALFORMED_TOOL_CALLS_PROMPT}\n\nPrevious assistant text before the malformed calls:\nsaid this`);
  });

  it('failed request: the partial stream is kept, else a failure row unless the turn is closed', () => {
    const broken = failedTurn({ errorText: 'Error calling LLM: boom', content: null, partial: 'half', errorMessage: undefined, closed: false });
    expect(broken).toMatchObject({ stopReason: 'error', finalContent: 'Error calling LLM: boom', error: 'Error calling LLM: boom', injected: 'resume' });
    expect(broken.rows).toEqual([{ role: 'assistant', content: 'half', _interrupted: true }]);
    const failed = failedTurn({ errorText: 'Error calling LLM: boom', content: null, partial: ' ', errorMessage: undefined, closed: false });
    expect(failed.rows).toHaveLength(1);
    expect(failureOf(failed.rows[0])).not.toBeNull();
    expect(failedTurn({ errorText: 'Error calling LLM: boom', content: null, partial: '', errorMessage: undefined, closed: true }).rows).toEqual([]);
    // An error finish: its own words, and a streamed error text is not kept as a partial answer.
    const finish = failedTurn({ errorText: null, content: 'the provider said no', partial: 'the provider said no', errorMessage: 'Sorry.', closed: false });
    expect(finish).toMatchObject({ finalContent: 'the provider said no', error: 'the provider said no' });
    expect(failureOf(finish.rows[0])).not.toBeNull();
    expect(failedTurn({ errorText: null, content: ' ', partial: '', errorMessage: 'Sorry.', closed: false })).toMatchObject({ finalContent: 'Sorry.', error: 'Sorry.' });
    expect(failedTurn({ errorText: null, content: null, partial: '', errorMessage: undefined, closed: false })).toMatchObject({ finalContent: DEFAULT_ERROR_MESSAGE });
  });

  it('endings: empty final, fail-fast, aborted, answered', () => {
    expect(emptyFinalTurn()).toEqual({ stopReason: 'empty_final_response', finalContent: EMPTY_FINAL_RESPONSE_MESSAGE, error: EMPTY_FINAL_RESPONSE_MESSAGE, rows: [{ role: 'assistant', content: EMPTY_FINAL_RESPONSE_MESSAGE }], injected: 'resume' });
    expect(toolFailureTurn('Error: x')).toEqual({ stopReason: 'tool_error', finalContent: 'Error: x', error: 'Error: x', rows: [{ role: 'assistant', content: 'Error: x' }], injected: 'continue' });
    expect(abortedTurn('  ')).toEqual({ stopReason: 'aborted', error: 'aborted', finalContent: undefined, rows: [], injected: 'final' });
    expect(abortedTurn('so far')).toMatchObject({ finalContent: 'so far', rows: [{ role: 'assistant', content: 'so far', _interrupted: true }] });
    expect(answeredTurn('done')).toEqual({ stopReason: 'completed', finalContent: 'done', error: undefined, rows: [], injected: 'next' });
  });
});
