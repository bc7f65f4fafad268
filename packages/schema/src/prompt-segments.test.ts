import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { makeSegment, promptSegmentCount } from './prompt-segments.js';
import { countTokens, getEncoder } from './tokenizer.js';
import { estimatePromptTokens } from './tokens.js';
import type { Message } from './message.js';

// Alphabet chosen to hit every branch of the cl100k pre-split: letters (incl. astral and
// combining), digits (incl. non-ASCII), contractions, punctuation, every whitespace kind.
const atoms = [
  'a', 'b', 'Z', 'é', 'e\u0301', 'ß', '日', '本', '\u{1D400}', '😀', '👩‍👧',
  '0', '1', '9', '٣', '²',
  "'", "'s", "'S", "'ll", "'re", "'d", "'t", "'ve", "'m",
  '.', ',', '!', '?', '-', '_', '{', '}', '"', '<', '>', '|', '/', '\\', '$',
  ' ', ' ', ' ', '  ', '\t', '\n', '\n', '\r', '\r\n', '\u00a0', '\u2028', '\u3000', '\ufeff', '\u000b', '\u000c',
  '\ud800', 'word', 'Hello', ' the', '123456', '    ',
];
const textArb = fc.array(fc.constantFrom(...atoms), { maxLength: 40 }).map((xs) => xs.join(''));
const mixedText = fc.oneof(textArb, fc.string({ unit: 'grapheme', maxLength: 30 }), fc.string({ unit: 'binary', maxLength: 20 }));

function fullCount(texts: string[]): number {
  return getEncoder()!.encode(texts.join('\n'), [], []).length;
}

describe('incremental prompt count equals a full encode', () => {
  it('for random joined texts', () => {
    fc.assert(
      fc.property(fc.array(mixedText, { minLength: 1, maxLength: 8 }), (texts) => {
        expect(promptSegmentCount(texts.map(makeSegment))).toBe(fullCount(texts));
      }),
      { numRuns: 600 },
    );
  });

  it('for a single text split at every sync point', () => {
    fc.assert(
      fc.property(textArb, (text) => {
        expect(promptSegmentCount([makeSegment(text)])).toBe(countTokens(text));
      }),
      { numRuns: 600 },
    );
  });

  it('for growing histories re-estimated warm (same message objects)', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.constantFrom('user', 'assistant', 'tool'), mixedText), { minLength: 1, maxLength: 12 }), (rows) => {
        const history: Message[] = [];
        for (const [role, content] of rows) {
          history.push(role === 'tool' ? { role, content, tool_call_id: 'c1', name: 'exec' } : { role, content });
          const payload = history.map((m) => [m.content, m.name, m.tool_call_id].filter((p) => typeof p === 'string' && (p === m.content || p !== '')).join('\n')).join('\n');
          expect(estimatePromptTokens(history)).toBe(getEncoder()!.encode(payload, [], []).length + 4 * history.length);
        }
      }),
      { numRuns: 150 },
    );
  });
});
