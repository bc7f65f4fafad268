import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { deepFreeze } from '@nanobot-internal/test-support';
import type { Message } from './message.js';
import {
  FAILURE_DETAIL_MAX_CHARS,
  LEGACY_FAILURE_TEXTS,
  MODEL_ERROR_NOTE,
  TOOL_INTERRUPTED_NOTE,
  TURN_INTERRUPTED_NOTE,
  failureOf,
  failureReplayRow,
  isFailureNote,
  replayFailures,
  replayedRow,
  toolFailureRow,
  turnFailureRow,
} from './message-failure.js';

describe('failure rows', () => {
  it('stores a failed turn as an empty assistant row with a `_failure` field, never as text', () => {
    expect(turnFailureRow('interrupted')).toEqual({ role: 'assistant', content: '', _failure: { kind: 'interrupted' } });
    const failed = turnFailureRow('model_error', `boom ${'x'.repeat(1000)}`);
    expect(failed.content).toBe('');
    expect((failed._failure as { detail: string }).detail).toHaveLength(FAILURE_DETAIL_MAX_CHARS);
    expect(turnFailureRow('model_error', '  ')._failure).toEqual({ kind: 'model_error' });
    expect(toolFailureRow({ id: 'c1', name: 'exec' })).toEqual({ role: 'tool', tool_call_id: 'c1', name: 'exec', content: TOOL_INTERRUPTED_NOTE, _failure: { kind: 'interrupted' } });
  });

  it('recognises new rows and the texts earlier versions and the reference stored', () => {
    expect(failureOf(turnFailureRow('interrupted'))).toEqual({ kind: 'interrupted', scope: 'turn', legacy: false });
    expect(failureOf(turnFailureRow('model_error', 'quota'))).toEqual({ kind: 'model_error', detail: 'quota', scope: 'turn', legacy: false });
    expect(failureOf(toolFailureRow({ id: 'c', name: 'n' }))).toEqual({ kind: 'interrupted', scope: 'tool', legacy: false });
    expect(failureOf({ role: 'assistant', content: LEGACY_FAILURE_TEXTS.turnInterrupted })).toEqual({ kind: 'interrupted', scope: 'turn', legacy: true });
    for (const text of LEGACY_FAILURE_TEXTS.modelError) expect(failureOf({ role: 'assistant', content: ` ${text}\n` })).toEqual({ kind: 'model_error', scope: 'turn', legacy: true });
    expect(failureOf({ role: 'tool', tool_call_id: 'c', content: LEGACY_FAILURE_TEXTS.toolInterrupted })).toEqual({ kind: 'interrupted', scope: 'tool', legacy: true });
  });

  it('leaves ordinary rows alone, the model’s own text included', () => {
    const ordinary: Message[] = [
      { role: 'user', content: LEGACY_FAILURE_TEXTS.turnInterrupted },
      { role: 'assistant', content: 'Error: Task interrupted before a response was generated. Retrying now.' },
      { role: 'assistant', content: LEGACY_FAILURE_TEXTS.turnInterrupted, tool_calls: [{ id: 'c', type: 'function', function: { name: 'x', arguments: '{}' } }] },
      { role: 'assistant', content: 'partial answer', _failure: { kind: 'model_error' } },
      { role: 'assistant', content: '', _failure: { kind: 'exploded' } },
      { role: 'assistant', content: '' },
      { role: 'tool', tool_call_id: 'c', content: 'Error: file not found' },
      { role: 'system', content: LEGACY_FAILURE_TEXTS.toolInterrupted },
    ];
    for (const message of ordinary) {
      expect(failureOf(message)).toBeNull();
      expect(failureReplayRow(message)).toBeNull();
    }
    expect(replayFailures(ordinary)).toBe(ordinary);
  });

  it('replays a turn failure as a user-role note and a tool failure as a neutral result', () => {
    const notes = [
      failureReplayRow(turnFailureRow('interrupted')),
      failureReplayRow({ role: 'assistant', content: LEGACY_FAILURE_TEXTS.turnInterrupted, timestamp: 't' }),
      failureReplayRow(turnFailureRow('model_error', 'HTTP 500')),
      failureReplayRow({ role: 'assistant', content: LEGACY_FAILURE_TEXTS.modelError[0] }),
    ];
    expect(notes).toEqual([
      { role: 'user', content: TURN_INTERRUPTED_NOTE },
      { role: 'user', content: TURN_INTERRUPTED_NOTE },
      { role: 'user', content: MODEL_ERROR_NOTE },
      { role: 'user', content: MODEL_ERROR_NOTE },
    ]);
    for (const note of notes) expect(isFailureNote(note!)).toBe(true);
    expect(failureReplayRow({ role: 'tool', tool_call_id: 'c9', name: 'exec', content: LEGACY_FAILURE_TEXTS.toolInterrupted, timestamp: 't' })).toEqual({
      role: 'tool',
      tool_call_id: 'c9',
      name: 'exec',
      content: TOOL_INTERRUPTED_NOTE,
    });
  });

  it('the notes are neutral: bracketed, never "Error", never first person', () => {
    for (const note of [TURN_INTERRUPTED_NOTE, MODEL_ERROR_NOTE, TOOL_INTERRUPTED_NOTE]) {
      expect(note.startsWith('[nanobot note: ')).toBe(true);
      expect(note.endsWith(']')).toBe(true);
      expect(note).not.toMatch(/\berror\b/i);
      expect(note).not.toMatch(/\b(I|I'm|my|me|sorry)\b/i);
    }
  });
});

describe('replayFailures', () => {
  const row = fc.oneof(
    fc.constant<Message>({ role: 'user', content: 'q' }),
    fc.constant<Message>({ role: 'assistant', content: 'a' }),
    fc.constant<Message>({ role: 'assistant', content: LEGACY_FAILURE_TEXTS.turnInterrupted }),
    fc.constant<Message>({ role: 'tool', tool_call_id: 'c', content: LEGACY_FAILURE_TEXTS.toolInterrupted }),
    fc.constant(0).map(() => turnFailureRow('model_error', 'x')),
    fc.constant(0).map(() => toolFailureRow({ id: 'c', name: 'n' })),
    fc.constant<Message>({ role: 'tool', tool_call_id: 'c', content: 'ok' }),
  );

  it('maps one row to one row, replaces exactly the failures, keeps the rest by identity and never mutates', () => {
    fc.assert(
      fc.property(fc.array(row, { maxLength: 30 }), (raw) => {
        const messages = deepFreeze(raw.map((m) => ({ ...m })));
        const out = replayFailures(messages);
        expect(out).toHaveLength(messages.length);
        messages.forEach((m, i) => {
          if (failureOf(m) === null) expect(out[i]).toBe(m);
          else expect(out[i]).toEqual(failureReplayRow(m));
        });
        expect(out.some((m) => m.role === 'assistant' && failureOf(m) !== null)).toBe(false);
        if (messages.every((m) => failureOf(m) === null)) expect(out).toBe(messages);
        // The same stored rows replay to the same objects, request after request.
        const again = replayFailures(messages);
        again.forEach((m, i) => expect(m).toBe(out[i]));
      }),
    );
  });

  it('replayedRow gives the slot replayFailures gives, row by row, in any order (a growing view replays only its new rows)', () => {
    fc.assert(
      fc.property(fc.array(row, { maxLength: 30 }), fc.boolean(), (raw, rowsFirst) => {
        const messages = deepFreeze(raw.map((m) => ({ ...m })));
        // Either side may meet a row first: both must hand out the same replay object.
        const single = rowsFirst ? messages.map((m) => replayedRow(m)) : null;
        const whole = replayFailures(messages);
        const rows = single ?? messages.map((m) => replayedRow(m));
        rows.forEach((m, i) => expect(m).toBe(whole[i]));
      }),
    );
  });
});
