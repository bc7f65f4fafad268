import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { makeSegment, promptSegmentCount } from './prompt-segments.js';
import { countTokens, getEncoder } from '../tokenizer/tokenizer.js';
import { estimatePromptTokens } from './tokens.js';
import type { Message } from '../messages/message.js';
import { pythonJsonDumps } from '../python/python-json.js';

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
  return getEncoder()!.encode(texts.join('\n')).length;
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
          expect(estimatePromptTokens(history)).toBe(getEncoder()!.encode(payload).length + 4 * history.length);
        }
      }),
      { numRuns: 150 },
    );
  });
});

describe('countTokens (piece-cached) equals js-tiktoken encode', () => {
  it('for random texts', () => {
    fc.assert(
      fc.property(fc.oneof(textArb, fc.string({ unit: 'grapheme', maxLength: 80 }), fc.string({ unit: 'binary', maxLength: 40 }), fc.string({ maxLength: 200 })), (text) => {
        // Twice: the second run is served from the piece cache.
        expect(countTokens(text)).toBe(getEncoder()!.encode(text).length);
        expect(countTokens(text)).toBe(getEncoder()!.encode(text).length);
      }),
      { numRuns: 1000 },
    );
  });
});

/** The reference's prompt payload, built independently of the incremental code. */
function referencePromptTokens(history: readonly Message[]): number {
  const parts: string[] = [];
  for (const m of history) {
    if (typeof m.content === 'string') parts.push(m.content);
    else if (Array.isArray(m.content)) {
      for (const p of m.content) if (p.type === 'text' && typeof p['text'] === 'string' && p['text']) parts.push(p['text']);
    }
    if (m.tool_calls && m.tool_calls.length > 0) parts.push(pythonJsonDumps(m.tool_calls));
    for (const key of ['reasoning_content', 'name', 'tool_call_id'] as const) {
      const v = m[key];
      if (typeof v === 'string' && v) parts.push(v);
    }
  }
  return getEncoder()!.encode(parts.join('\n')).length + 4 * history.length;
}

describe('prefix memo under arbitrary history edits', () => {
  const messageArb: fc.Arbitrary<Message> = fc.oneof(
    fc.record({ role: fc.constant('user'), content: mixedText }),
    fc.record({ role: fc.constant('user'), content: fc.array(fc.oneof(fc.record({ type: fc.constant('text'), text: mixedText }), fc.constant({ type: 'image_url', image_url: { url: 'data:x' } })), { maxLength: 3 }) }),
    fc.record({
      role: fc.constant('assistant'),
      content: fc.option(mixedText, { nil: null }),
      tool_calls: fc.array(fc.record({ id: fc.constantFrom('c1', 'c2'), type: fc.constant('function' as const), function: fc.record({ name: fc.constantFrom('exec', 'read'), arguments: mixedText }) }), { maxLength: 2 }),
      reasoning_content: fc.option(mixedText, { nil: undefined }),
    }),
    fc.record({ role: fc.constant('tool'), tool_call_id: fc.constantFrom('c1', 'c2', ''), name: fc.constantFrom('exec', ''), content: mixedText }),
  ) as fc.Arbitrary<Message>;
  const opArb = fc.oneof(
    fc.record({ op: fc.constant('append' as const), msgs: fc.array(messageArb, { minLength: 1, maxLength: 3 }) }),
    fc.record({ op: fc.constant('replace' as const), at: fc.nat(), msg: messageArb }),
    fc.record({ op: fc.constant('setContent' as const), at: fc.nat(), text: mixedText }),
    fc.record({ op: fc.constant('truncate' as const), keep: fc.nat() }),
    fc.record({ op: fc.constant('fork' as const) }),
  );

  it('always equals a full encode', () => {
    fc.assert(
      fc.property(messageArb, fc.array(opArb, { maxLength: 12 }), (firstMessage, ops) => {
        // One first message shared by every history: they all share one prefix memo.
        let history: Message[] = [firstMessage];
        const others: Message[][] = [];
        for (const op of ops) {
          if (op.op === 'append') history = [...history, ...op.msgs];
          else if (op.op === 'replace') history = history.map((m, i) => (i === op.at % history.length ? op.msg : m));
          else if (op.op === 'setContent') history[op.at % history.length]!.content = op.text; // in-place field replacement
          else if (op.op === 'truncate') history = history.slice(0, Math.max(1, op.keep % (history.length + 1)));
          else {
            others.push(history);
            history = [...history];
          }
          expect(estimatePromptTokens(history)).toBe(referencePromptTokens(history));
          for (const other of others) expect(estimatePromptTokens(other)).toBe(referencePromptTokens(other));
        }
      }),
      { numRuns: 300 },
    );
  });
});
