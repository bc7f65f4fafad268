import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DrainableCapture } from './drainable-capture.js';
import { clampSessionInt, formatSessionPoll } from './format-session-poll.js';

describe('DrainableCapture', () => {
  it('keeps a prefix and a suffix within the budget and counts everything it dropped', () => {
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 64 }), fc.array(fc.string({ maxLength: 40 }), { maxLength: 30 }), (max, chunks) => {
        const capture = new DrainableCapture(max);
        for (const chunk of chunks) capture.append(chunk);
        const all = chunks.join('');
        const { text, truncated } = capture.drain();
        expect(text.length + truncated).toBe(all.length);
        expect(text.length).toBeLessThanOrEqual(max);
        if (all.length <= max) expect(text).toBe(all);
        else {
          const head = Math.floor(max / 2);
          expect(text).toBe(all.slice(0, head) + all.slice(all.length - (max - head)));
        }
        // A drain starts afresh.
        expect(capture.drain()).toEqual({ text: '', truncated: 0 });
        expect(capture.hasOutput).toBe(false);
      }),
    );
  });
});

describe('session texts', () => {
  it('formats a poll as the reference does', () => {
    const base = { output: '', done: false, exitCode: null, elapsedS: 1.24, timedOut: false, terminated: false, stdinClosed: false, truncatedChars: 0 };
    expect(formatSessionPoll('abc', base)).toBe('Process running. session_id: abc\nElapsed: 1.2s');
    expect(formatSessionPoll('abc', { ...base, output: 'hi', truncatedChars: 12345, done: true, exitCode: 0, terminated: true, stdinClosed: true })).toBe(
      'hi\n(12,345 chars truncated from output)\nSession terminated.\nStdin closed.\nExit code: 0\nElapsed: 1.2s',
    );
    expect(formatSessionPoll('abc', { ...base, timedOut: true, terminated: true, done: true, exitCode: -9 })).toBe(
      'Error: Command timed out; session was terminated.\nExit code: -9\nElapsed: 1.2s',
    );
    expect(formatSessionPoll('abc', { ...base, waitObserved: false }, "it's")).toBe('Process running. session_id: abc\nElapsed: 1.2s\nWait target not observed: "it\'s"');
    // Python's repr escapes what it cannot print (the former local copy passed these through).
    expect(formatSessionPoll('abc', { ...base, waitObserved: false }, 'a\x1bb\u2028')).toBe("Process running. session_id: abc\nElapsed: 1.2s\nWait target not observed: 'a\\x1bb\\u2028'");
  });

  it('clamps like clamp_session_int', () => {
    expect([clampSessionInt(undefined, 1000, 0, 30_000), clampSessionInt(99_999, 1000, 0, 30_000), clampSessionInt(-5, 1000, 0, 30_000), clampSessionInt(12.7, 1000, 0, 30_000)]).toEqual([1000, 30_000, 0, 12]);
  });
});
