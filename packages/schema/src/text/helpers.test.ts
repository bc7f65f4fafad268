import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { extractThink, stripReasoningTags, stripThink } from './strip-think.js';
import { safeFilename } from './safe-filename.js';
import { hasLoneSurrogate, sanitizeSurrogates, sanitizeSurrogatesDeep } from './sanitize-surrogates.js';
import { splitMessage } from './split-message.js';
import { stringifyTextBlocks } from './stringify-text-blocks.js';
import { codePointLength, truncateText, truncateTextToTokens } from './truncate-text.js';
import { deepFreeze, loadCases } from '@nanobot-internal/test-support';
import { setTokenizerUnavailableForTesting } from '../tokenizer/tokenizer.js';

type Runner = (input: Record<string, unknown>) => unknown;

const RUNNERS: Record<string, Runner> = {
  'helpers.truncate_text': (i) => truncateText(i['text'] as string, i['max_chars'] as number),
  'helpers.truncate_text_to_tokens': (i) => truncateTextToTokens(i['text'] as string, i['max_tokens'] as number),
  'helpers.stringify_text_blocks': (i) => stringifyTextBlocks(i['content'] as unknown[]),
  'helpers.safe_filename': (i) => safeFilename(i['name'] as string),
  'helpers.sanitize_surrogates': (i) => sanitizeSurrogates(i['text'] as string),
  'helpers.strip_think': (i) => stripThink(i['text'] as string),
  'helpers.extract_think': (i) => extractThink(i['text'] as string),
  'helpers.strip_reasoning_tags': (i) => stripReasoningTags(i['text']),
  'helpers.split_message': (i) => splitMessage(i['content'] as string, i['max_len'] as number),
};

describe('helpers conformance (the string helpers this package owns)', () => {
  const all = loadCases('helpers/helpers.json');
  // Other cases in the file (find_legal_message_start, build_assistant_message, …) belong to
  // @nanobot/governor and @nanobot/runner.
  const cases = all.filter((c) => c.fn in RUNNERS);
  it(`runs every case of its functions (${cases.length} of ${all.length})`, () => {
    expect(cases.length).toBe(105);
    const failures: string[] = [];
    for (const c of cases) {
      const input = deepFreeze(structuredClone(c.input));
      const got = RUNNERS[c.fn]!(input);
      if (JSON.stringify(got) !== JSON.stringify(c.expected)) failures.push(`${c.name}: got ${JSON.stringify(got)} expected ${JSON.stringify(c.expected)}`);
    }
    expect(failures).toEqual([]);
  });
});

describe('string helpers', () => {
  it('truncateText counts code points and is idempotent when the limit leaves room', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 60 }), fc.integer({ min: 1, max: 40 }), (text, max) => {
        const out = truncateText(text, max);
        if (codePointLength(text) <= max) expect(out).toBe(text);
        else expect(out.endsWith('\n... (truncated)')).toBe(true);
      }),
    );
  });

  it('truncateTextToTokens falls back to a UTF-8 byte budget without tiktoken', () => {
    setTokenizerUnavailableForTesting(true);
    try {
      expect(truncateTextToTokens('ééééé', 4)).toBe('éé');
      expect(truncateTextToTokens('a'.repeat(40), 20)).toBe('aaaa\n... (truncated)');
      expect(truncateTextToTokens('short', 20)).toBe('short');
    } finally {
      setTokenizerUnavailableForTesting(false);
    }
  });

  it('splitMessage chunks never exceed the limit and lose only whitespace', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('a', 'b', ' ', '\n', '😀', 'é'), maxLength: 120 }), fc.integer({ min: 1, max: 15 }), (text, max) => {
        const chunks = splitMessage(text, max);
        for (const chunk of chunks) expect(codePointLength(chunk)).toBeLessThanOrEqual(max);
        expect(chunks.join('').replace(/\s/g, '')).toBe(text.replace(/\s/g, ''));
      }),
    );
  });

  it('sanitizeSurrogates leaves well-formed text identical', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        const out = sanitizeSurrogates(text);
        expect(hasLoneSurrogate(out)).toBe(false);
        expect(out.length).toBe(text.length);
        if (!hasLoneSurrogate(text)) expect(out).toBe(text);
      }),
    );
  });

  it("safeFilename strips with Python's whitespace (U+001C–U+001F go, U+FEFF stays), not JS trim()", () => {
    expect(safeFilename('\x1c a/b:c \x1f')).toBe('a_b_c');
    expect(safeFilename('\ufeffname\ufeff')).toBe('\ufeffname\ufeff');
  });

  it('sanitizeSurrogatesDeep repairs every string and key, copies only what changed, mutates nothing', () => {
    const clean = { a: ['x', { b: 'y' }], n: 1 };
    expect(sanitizeSurrogatesDeep(clean)).toBe(clean);
    const input = deepFreeze({ keep: { ok: 'fine' }, list: ['\ud800', 'ok'], ['k\udc00']: 'v' });
    const out = sanitizeSurrogatesDeep(input);
    expect(out).toEqual({ keep: { ok: 'fine' }, list: ['\ufffd', 'ok'], ['k\ufffd']: 'v' });
    expect(out.keep).toBe(input.keep);
  });

  it('stripThink handles a trailing newline like Python `$`', () => {
    expect(stripThink('answer <thi\n')).toBe('answer');
    expect(stripReasoningTags('<think>\nreasoning\n</think>\n')).toBe('reasoning');
  });
});
