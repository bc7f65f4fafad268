import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatDuration, formatToolArgs } from './format-tool-args.js';

describe('formatToolArgs', () => {
  it('shows key=value pairs, quoting strings with spaces', () => {
    expect(formatToolArgs({ path: 'README.md', limit: 20 })).toBe('path=README.md limit=20');
    expect(formatToolArgs({ command: 'ls -la' })).toBe('command="ls -la"');
    expect(formatToolArgs({ content: 'a\nb' })).toBe('content="a⏎b"');
    expect(formatToolArgs('raw text')).toBe('raw text');
  });

  it('stays on one line within the limit for any JSON value', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.integer({ min: 8, max: 120 }), (value, max) => {
        const text = formatToolArgs(value, max);
        expect(text.length).toBeLessThanOrEqual(max);
        expect(text).not.toMatch(/\n/);
      }),
      { numRuns: 300 },
    );
  });
});

describe('formatDuration', () => {
  it('picks a readable unit', () => {
    expect(formatDuration(12.4)).toBe('12 ms');
    expect(formatDuration(3400)).toBe('3.4 s');
    expect(formatDuration(125_000)).toBe('2 min 05 s');
  });
});
