// The tokenizer's loading paths as a runtime without synchronous loading sees them (Workers,
// edge, browsers): this file switches off the Node entry's synchronous source first, so every
// count here needs `loadTokenizer` — and must throw, never count bytes, before it.
import { Tiktoken } from 'js-tiktoken/lite';
import cl100k from 'js-tiktoken/ranks/cl100k_base';
import o200k from 'js-tiktoken/ranks/o200k_base';
import { describe, expect, it } from 'vitest';
import { TokenizerNotLoadedError, ValidationError } from '../errors/errors.js';
import type { Message } from '../messages/message.js';
import { createEstimator } from '../tokens/create-estimator.js';
import { estimateMessageTokens, estimatePromptTokens } from '../tokens/tokens.js';
import { truncateTextToTokens } from '../text/truncate-text.js';
import { encodingLoaded, encodingLoadMs, loadTokenizer, setSyncRankSource } from './encoder-store.js';
import { countWithEncoding } from './encoding-counter.js';
import { countTokens, tokenizerLoaded } from './tokenizer.js';
import { nodeRankSource } from '../node/node-sources.js';

setSyncRankSource(null);

const reference = { cl100k_base: new Tiktoken(cl100k), o200k_base: new Tiktoken(o200k) };
const TEXT = 'The governor counts every message before it cuts: 12,345 tokens of prose.';
const history: Message[] = [
  { role: 'system', content: 'You are nanobot.' },
  { role: 'user', content: TEXT },
];

function thrown(fn: () => unknown): TokenizerNotLoadedError {
  try {
    fn();
  } catch (error) {
    // By name and code: the tests below re-import the store, and with it the error class.
    expect((error as Error).name).toBe(TokenizerNotLoadedError.name);
    expect((error as TokenizerNotLoadedError).code).toBe('TOKENIZER_NOT_LOADED');
    return error as TokenizerNotLoadedError;
  }
  throw new Error('expected a TokenizerNotLoadedError');
}

describe('before loadTokenizer (a runtime without synchronous loading)', () => {
  it('throws a typed error from every count, never counting bytes', () => {
    expect(encodingLoaded('cl100k_base')).toBe(false);
    const err = thrown(() => countTokens(TEXT));
    expect(err).toBeInstanceOf(TokenizerNotLoadedError);
    expect(err.encoding).toBe('cl100k_base');
    expect(err.message).toContain("await loadTokenizer('cl100k_base')");
    thrown(() => estimatePromptTokens(history));
    thrown(() => estimatePromptTokens([]));
    thrown(() => estimateMessageTokens({ role: 'user', content: TEXT }));
    thrown(() => truncateTextToTokens(TEXT, 5));
    thrown(() => createEstimator({ tokenizer: 'claude' }).promptTokens(history));
    expect(thrown(() => countWithEncoding('o200k_base', TEXT)).encoding).toBe('o200k_base');
    expect(thrown(() => createEstimator({ tokenizer: 'o200k_base' }).messageTokens(history[1]!)).encoding).toBe('o200k_base');
    // Empty text needs no ranks, as before.
    expect(countTokens('')).toBe(0);
    expect(tokenizerLoaded()).toBe(false);
  });

  it('rejects unknown names and misplaced ranks with a ValidationError', async () => {
    await expect(loadTokenizer('gpt2' as never)).rejects.toThrow(ValidationError);
    await expect(loadTokenizer(['cl100k_base', 'o200k_base'], { ranks: cl100k })).rejects.toThrow(/one encoding/);
    await expect(loadTokenizer('o200k_base', { ranks: cl100k })).rejects.toThrow(/not o200k_base's/);
    await expect(loadTokenizer('o200k_base', { ranks: { pat_str: 'x' } as never })).rejects.toThrow(ValidationError);
    expect(encodingLoaded('o200k_base')).toBe(false);
  });
});

describe('loadTokenizer', () => {
  it('loads one encoding through its dynamic import, concurrent calls sharing it; counts are exact after', async () => {
    const a = loadTokenizer('claude'); // claude counts in cl100k
    const b = loadTokenizer('cl100k_base');
    await Promise.all([a, b]);
    expect(encodingLoaded('cl100k_base')).toBe(true);
    expect(typeof encodingLoadMs('cl100k_base')).toBe('number');
    expect(encodingLoaded('o200k_base')).toBe(false);
    expect(countTokens(TEXT)).toBe(reference.cl100k_base.encode(TEXT, [], []).length);
    const payload = history.map((m) => m.content).join('\n');
    expect(estimatePromptTokens(history)).toBe(reference.cl100k_base.encode(payload, [], []).length + 4 * history.length);
    // o200k is still not loaded: its counts still throw.
    thrown(() => countWithEncoding('o200k_base', TEXT));
  });

  it('takes ranks the caller already has (the module or its default export), and refuses other ranks afterwards', async () => {
    await loadTokenizer('o200k_base', { ranks: { default: o200k } });
    expect(countWithEncoding('o200k_base', TEXT)).toBe(reference.o200k_base.encode(TEXT, [], []).length);
    await loadTokenizer('o200k_base', { ranks: o200k }); // the same data: nothing to do
    const other = { ...o200k, bpe_ranks: o200k.bpe_ranks.slice(0, 1000) };
    await expect(loadTokenizer('o200k_base', { ranks: other })).rejects.toThrow(/other ranks/);
    await loadTokenizer(); // every encoding; both loaded already
    expect(createEstimator({ tokenizer: 'o200k_base' }).promptTokens(history)[1]).toBe('tiktoken');
  });
});

describe('the synchronous source (what the Node entry registers)', () => {
  it('reports a failing source as the cause, and loadTokenizer still works after', async () => {
    // Fresh state for this check: a module-level store, so re-import it in isolation.
    const { vi } = await import('vitest');
    vi.resetModules();
    const store = await import('./encoder-store.js');
    const tokenizer = await import('./tokenizer.js');
    store.setSyncRankSource(() => {
      throw new Error('no node_modules beside this bundle');
    });
    const err = thrown(() => tokenizer.countTokens(TEXT));
    expect(err.message).toContain('could not be loaded synchronously (no node_modules beside this bundle)');
    expect((err.cause as Error).message).toBe('no node_modules beside this bundle');
    await store.loadTokenizer('cl100k_base');
    expect(tokenizer.countTokens(TEXT)).toBe(reference.cl100k_base.encode(TEXT, [], []).length);
  });

  it('loads on the first count with the Node source, no await', async () => {
    const { vi } = await import('vitest');
    vi.resetModules();
    const store = await import('./encoder-store.js');
    const tokenizer = await import('./tokenizer.js');
    store.setSyncRankSource(nodeRankSource);
    expect(store.encodingLoaded('cl100k_base')).toBe(false);
    expect(tokenizer.countTokens(TEXT)).toBe(reference.cl100k_base.encode(TEXT, [], []).length);
    expect(store.encodingLoaded('cl100k_base')).toBe(true);
  });
});
