// TextCounts keeps token counts of whole texts so that a governed copy of a message (a renamed
// tool-call id, a placeholder signature) counts only what changed. A kept count must be the one
// a fresh count gives: per text (never per length or another text's), per encoding, and never
// across the switch to the byte heuristic.
import { Tiktoken } from 'js-tiktoken/lite';
import cl100k from 'js-tiktoken/ranks/cl100k_base';
import o200k from 'js-tiktoken/ranks/o200k_base';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { runs } from '@nanobot-internal/test-support';
import { setTokenizerUnavailableForTesting } from '../tokenizer/tokenizer.js';
import { utf8Length } from '../tokenizer/tokenizer.js';
import { createEstimator } from './create-estimator.js';
import type { Message } from '../messages/message.js';
import { TextCounts } from './text-counts.js';

const full = { cl100k_base: new Tiktoken(cl100k), o200k_base: new Tiktoken(o200k) };
const exact = (encoding: 'cl100k_base' | 'o200k_base', texts: readonly string[]): number => texts.reduce((a, t) => a + full[encoding].encode(t, [], []).length, 0);

afterEach(() => setTokenizerUnavailableForTesting(false));

describe('TextCounts', () => {
  it('gives every text its own count, again and again (same string, equal copy, same length)', () => {
    for (const encoding of ['cl100k_base', 'o200k_base'] as const) {
      const counts = new TextCounts(encoding);
      fc.assert(
        fc.property(fc.array(fc.string({ unit: 'grapheme', maxLength: 40 }), { maxLength: 6 }), (texts) => {
          const want = exact(encoding, texts);
          expect(counts.count(texts)).toEqual([want, false]);
          // Equal strings built afresh (not the same objects) and the same ones again.
          expect(counts.count(texts.map((t) => [...t].join('')))).toEqual([want, false]);
          expect(counts.count(texts)).toEqual([want, false]);
        }),
        { numRuns: runs(100, 1000) },
      );
    }
  });

  it('never hands a kept count to another text of the same length, or to another encoding', () => {
    const a = new TextCounts('cl100k_base');
    const b = new TextCounts('o200k_base');
    const texts = ['aaaaaaaaaaaa', 'a b c d e f ', '日本語のテキスト', 'xY7kQ2mZp', 'xY7kQ2mZq'];
    for (const t of texts) expect(a.count([t])[0]).toBe(exact('cl100k_base', [t]));
    for (const t of texts) expect(b.count([t])[0]).toBe(exact('o200k_base', [t]));
    for (const t of texts.reverse()) expect(a.count([t])[0]).toBe(exact('cl100k_base', [t]));
    expect(a.count(['日本語のテキスト'])[0]).not.toBe(b.count(['日本語のテキスト'])[0]);
  });

  it('counts bytes, not a kept count, while tiktoken is switched off; keeps nothing then', () => {
    const counts = new TextCounts('cl100k_base');
    const text = 'the governor counts every message before it cuts';
    expect(counts.count([text])).toEqual([exact('cl100k_base', [text]), false]);
    setTokenizerUnavailableForTesting(true);
    expect(counts.count([text, 'more'])).toEqual([utf8Length(text) + 4, true]);
    setTokenizerUnavailableForTesting(false);
    expect(counts.count([text, 'more'])).toEqual([exact('cl100k_base', [text, 'more']), false]);
  });

  it('stays bounded: starts again empty when full, counts unchanged, long texts not kept', () => {
    const counts = new TextCounts('cl100k_base');
    for (let i = 0; i < 10_000; i++) expect(counts.count([`text number ${i}`])[0]).toBe(exact('cl100k_base', [`text number ${i}`]));
    expect(counts.size).toBeLessThanOrEqual(4_096);
    const long = 'word '.repeat(60_000);
    const before = counts.size;
    expect(counts.count([long])[0]).toBe(exact('cl100k_base', [long]));
    expect(counts.size).toBe(before);
  });
});

describe('a provider estimator counting copies', () => {
  it('counts a copy with a renamed id or a new field value as a fresh message, never with the original count', () => {
    const estimator = createEstimator({ tokenizer: 'cl100k_base' });
    const content = 'result config error path value '.repeat(30);
    const result: Message = { role: 'tool', tool_call_id: 'call_7_12345', name: 'exec', content };
    const call: Message = { role: 'assistant', content: null, tool_calls: [{ id: 'call_7_12345', type: 'function', function: { name: 'exec', arguments: '{"arg": "1"}' } }] };
    const n = estimator.messageTokens(result);
    const renamed: Message = { ...result, tool_call_id: 'aB3xK9pQz' };
    const renamedCall: Message = { ...call, tool_calls: [{ ...call.tool_calls![0]!, id: 'aB3xK9pQz' }] };
    const fresh = (m: Message): number => createEstimator({ tokenizer: 'cl100k_base' }).messageTokens(structuredClone(m));
    expect(estimator.messageTokens(renamed)).toBe(fresh(renamed));
    expect(estimator.messageTokens(renamed)).not.toBe(n);
    expect(estimator.messageTokens(renamedCall)).toBe(fresh(renamedCall));
    // The same content with one word changed: a different text, counted afresh.
    const edited: Message = { ...result, content: content.replace('config', 'configuration files') };
    expect(estimator.messageTokens(edited)).toBe(fresh(edited));
    expect(estimator.messageTokens(edited)).not.toBe(n);
    expect(estimator.messageTokens(result)).toBe(n);
  });
});
