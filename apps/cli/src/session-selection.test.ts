import { describe, expect, it } from 'vitest';
import { plural } from './plural.js';
import { describeWarnings } from './session-selection.js';

describe('message wording', () => {
  it('counts in the right number', () => {
    expect(plural(1, 'line')).toBe('1 line');
    expect(plural(2, 'line')).toBe('2 lines');
    expect(plural(0, 'message')).toBe('0 messages');
    expect(plural(1, 'entry', 'entries')).toBe('1 entry');
    expect(plural(1200, 'message')).toBe('1,200 messages');
  });

  it('describes skipped lines and a missing metadata record apart', () => {
    const text = describeWarnings([
      { kind: 'corrupt-line', line: 2, message: 'not JSON' },
      { kind: 'invalid-record', line: 5, message: 'not a message' },
      { kind: 'missing-header', line: 0, message: 'No metadata record found; defaults used' },
    ]);
    expect(text).toBe('2 unreadable lines, skipped (line 2: not JSON; line 5: not a message); no metadata record');
    expect(describeWarnings([{ kind: 'corrupt-line', line: 3, message: 'x' }])).toBe('1 unreadable line, skipped (line 3: x)');
    expect(describeWarnings([{ kind: 'corrupt-line', line: 3, message: 'Line 3 is not valid JSON (bad); skipped' }])).toBe('1 unreadable line, skipped (line 3 is not valid JSON (bad))');
  });
});
