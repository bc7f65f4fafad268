import { describe, expect, it } from 'vitest';
import type { Message } from '../messages/message.js';
import { estimatePromptTokens, estimatePromptTokensChain, estimatePromptTokensWithSource } from './tokens.js';
import { createEstimator } from './create-estimator.js';

function history(n: number): Message[] {
  const out: Message[] = [{ role: 'system', content: 'You are terse.' }];
  for (let i = 0; out.length < n; i++) {
    out.push({ role: 'user', content: `question ${i}: what is in file ${i}?` });
    out.push({ role: 'assistant', content: `It holds ${i * 7} lines.\n` });
  }
  return out;
}

describe('sameObjectsSameValues', () => {
  it('gives the full estimate for fresh, grown, cut and diverging lists', () => {
    const h = history(60);
    const fresh = () => JSON.parse(JSON.stringify(h)) as Message[];
    const opts = { sameObjectsSameValues: true };
    for (const list of [h.slice(0, 10), h.slice(0, 40), h, h.slice(0, 25), [...h.slice(0, 30), { role: 'user', content: 'new' } as Message]]) {
      const want = estimatePromptTokens(JSON.parse(JSON.stringify(list)) as Message[]);
      expect(estimatePromptTokensWithSource(list, null, opts)[0]).toBe(want);
      expect(estimatePromptTokensChain(null, list, null, null, opts)[0]).toBe(want);
    }
    expect(estimatePromptTokensWithSource(h, null, opts)).toEqual(estimatePromptTokensWithSource(fresh(), null));
  });

  it('does not see a field replaced in place on an object already estimated (documented), the default does', () => {
    const msg: Message = { role: 'user', content: 'hello' };
    const list = [{ role: 'system', content: 'sys' } as Message, msg];
    const before = estimatePromptTokensWithSource(list, null, { sameObjectsSameValues: true })[0];
    msg.content = 'hello there, a much longer text now';
    expect(estimatePromptTokensWithSource(list, null, { sameObjectsSameValues: true })[0]).toBe(before);
    expect(estimatePromptTokens(list)).toBeGreaterThan(before);
  });

  it('the provider-view estimator takes the option too: full counts for grown and diverging lists, fields re-read without it', () => {
    for (const tokenizer of ['cl100k_base', 'o200k_base'] as const) {
      const estimator = createEstimator({ tokenizer });
      const h = history(40);
      const opts = { sameObjectsSameValues: true };
      for (const list of [h.slice(0, 10), h, h.slice(0, 25), [...h.slice(0, 30), { role: 'user', content: 'new' } as Message]]) {
        const want = estimator.promptTokens(JSON.parse(JSON.stringify(list)) as Message[])[0];
        expect(estimator.promptTokens(list, null, opts)[0]).toBe(want);
        expect(estimatePromptTokensChain(null, list, null, estimator, opts)[0]).toBe(want);
      }
      const msg: Message = { role: 'user', content: 'hello' };
      const list = [{ role: 'system', content: 'sys' } as Message, msg];
      const before = estimator.promptTokens(list, null, opts)[0];
      msg.content = 'hello there, a much longer text now';
      expect(estimator.promptTokens(list, null, opts)[0]).toBe(before);
      expect(estimator.promptTokens(list)[0]).toBeGreaterThan(before);
    }
  });
});
