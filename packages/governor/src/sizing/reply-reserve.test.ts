// Issue 29 item 5: without a reply size, the reserve comes from the model table and else scales
// with the window (default mode); the reference keeps its 4096; the report says which.
import { describe, expect, it } from 'vitest';
import { govern } from '../govern.js';
import { inputBudget, replyReserve, windowReplyReserve } from './input-budget.js';

const history = [{ role: 'user' as const, content: 'hi' }];

describe('reply reserve', () => {
  it('scales with the window when nothing names a reply size', () => {
    expect([8000, 16000, 32000, 64000, 128000, 2000].map(windowReplyReserve)).toEqual([1024, 2048, 4096, 8192, 8192, 512]);
    const r = govern(history, { contextWindowTokens: 8000 }).report;
    expect(r.replyReserve).toEqual({ tokens: 1024, source: 'window' });
    expect(r.budget).toBe(8000 - 1024 - 1024);
  });

  it('keeps the reference\'s 4096 in compat: \'reference\' and in the plain inputBudget', () => {
    const r = govern(history, { contextWindowTokens: 8000, compat: 'reference' }).report;
    expect(r.replyReserve).toEqual({ tokens: 4096, source: 'reference-default' });
    expect(r.budget).toBe(2880);
    expect(inputBudget({ contextWindowTokens: 8000 })).toBe(2880);
  });

  it('names the caller\'s and the model table\'s sizes', () => {
    expect(govern(history, { contextWindowTokens: 8000, maxOutputTokens: 300 }).report.replyReserve).toEqual({ tokens: 300, source: 'maxOutputTokens' });
    expect(govern(history, { contextWindowTokens: 8000, providerMaxTokens: 700 }).report.replyReserve).toEqual({ tokens: 700, source: 'providerMaxTokens' });
    const model = govern(history, { model: 'gpt-4o' }).report.replyReserve!;
    expect(model.source).toBe('model');
    expect(model.tokens).toBeGreaterThan(0);
    expect(govern(history, {}).report.replyReserve).toBeUndefined();
    expect(replyReserve({ contextWindowTokens: 16000, replyReserveDefault: 'window' })).toEqual({ tokens: 2048, source: 'window' });
  });
});
