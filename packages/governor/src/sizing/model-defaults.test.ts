import { describe, expect, it } from 'vitest';
import { createEstimator, estimatePromptTokens, ValidationError, type Message, type ModelInfo } from '@nanobot/schema';
import { deepFreeze } from '@nanobot-internal/test-support';
import { govern, type GovernOptions } from '../govern.js';
import { withModelDefaults } from './model-defaults.js';
import { checkLegality } from '../check-legality.js';

const history: Message[] = deepFreeze([
  { role: 'system', content: 'You are nanobot.' },
  { role: 'user', content: 'Write the file.' },
  {
    role: 'assistant',
    content: null,
    tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'write_file', arguments: JSON.stringify({ path: 'a.ts', content: 'export const x = "y";\n'.repeat(30) }) } }],
  },
  { role: 'tool', tool_call_id: 'call_1', name: 'write_file', content: 'ok' },
  { role: 'user', content: 'Thanks — and now the test, "quoted" please.' },
]);

describe('govern({ model })', () => {
  it('takes window, reply size and tokenizer from the model table', () => {
    const { report } = govern(history, { model: 'gpt-4o' });
    expect(report.budget).toBe(128_000 - 16_384 - 1_024);
    expect(report.tokensAfter).toBe(createEstimator({ tokenizer: 'o200k_base' }).promptTokens(history)[0]);
    expect(withModelDefaults({ model: 'openai/gpt-4o-mini' })).toEqual({ model: 'openai/gpt-4o-mini', contextWindowTokens: 128_000, maxOutputTokens: 16_384, tokenizer: 'o200k_base' });
  });

  it("takes the table's reply size only with its window (a chosen window keeps the default reservation)", () => {
    // claude-sonnet's maximum reply is 64k: next to a 65,536 window it would leave 512 tokens.
    // The default mode reserves an eighth of the chosen window (8,192 here); the reference 4,096.
    expect(govern(history, { model: 'claude-sonnet-4-5', contextWindowTokens: 65_536 }).report.budget).toBe(65_536 - 8_192 - 1_024);
    expect(govern(history, { model: 'claude-sonnet-4-5', contextWindowTokens: 65_536, compat: 'reference' }).report.budget).toBe(65_536 - 4_096 - 1_024);
    expect(withModelDefaults({ model: 'claude-sonnet-4-5', contextWindowTokens: 65_536 })).toEqual({ model: 'claude-sonnet-4-5', contextWindowTokens: 65_536, tokenizer: 'claude' });
    expect(govern(history, { model: 'claude-sonnet-4-5' }).report.budget).toBe(200_000 - 64_000 - 1_024);
  });

  it('keeps what is set explicitly', () => {
    expect(govern(history, { model: 'gpt-4o', contextWindowTokens: 8_000, maxOutputTokens: 1_000 }).report.budget).toBe(8_000 - 1_000 - 1_024);
    // The provider's reply size counts as set.
    expect(govern(history, { model: 'gpt-4o', providerMaxTokens: 2_000 }).report.budget).toBe(128_000 - 2_000 - 1_024);
    const cl = govern(history, { model: 'gpt-4o', tokenizer: 'cl100k_base' }).report.tokensAfter;
    expect(cl).toBe(createEstimator({ tokenizer: 'cl100k_base' }).promptTokens(history)[0]);
  });

  it('counts with the tokenizer of the model family', () => {
    const count = (model: string) => govern(history, { model, estimateTokens: true }).report.tokensAfter;
    expect(count('gpt-4')).toBe(createEstimator({ tokenizer: 'cl100k_base' }).promptTokens(history)[0]);
    expect(count('gpt-5-mini')).toBe(createEstimator({ tokenizer: 'o200k_base' }).promptTokens(history)[0]);
    expect(count('claude-sonnet-4-5')).toBe(createEstimator({ tokenizer: 'claude' }).promptTokens(history)[0]);
    expect(count('claude-sonnet-4-5')).toBeGreaterThan(count('gpt-4')!);
  });

  it('changes nothing for an unknown model', () => {
    const options: GovernOptions = { contextWindowTokens: 6_000, maxOutputTokens: 500 };
    const without = govern(history, options);
    const withUnknown = govern(history, { ...options, model: 'my-local-llama' });
    expect(withUnknown).toEqual(without);
    expect(withModelDefaults({ model: 'my-local-llama' })).toEqual({ model: 'my-local-llama' });
    expect(govern(history, { model: 'my-local-llama' }).report.budget).toBe(0);
  });

  it('uses your model entries first', () => {
    const models: ModelInfo[] = [{ id: 'llama', pattern: /llama/, contextWindow: 32_768, maxOutput: 2_048, tokenizer: 'o200k_base' }];
    const { report } = govern(history, { model: 'my-local-llama', models });
    expect(report.budget).toBe(32_768 - 2_048 - 1_024);
    expect(report.tokensAfter).toBe(createEstimator({ tokenizer: 'o200k_base' }).promptTokens(history)[0]);
  });

  it("keeps the reference's count with compat: 'reference', and an injected estimator wins", () => {
    expect(govern(history, { model: 'gpt-4o', compat: 'reference' }).report.tokensAfter).toBe(estimatePromptTokens(history));
    const fixed = { mode: 'provider' as const, tokenizer: 'cl100k_base' as const, promptTokens: () => [1234, 'test'] as [number, string], messageTokens: () => 1, toolsTokens: () => 0 };
    expect(govern(history, { model: 'gpt-4o', estimator: fixed }).report.tokensAfter).toBe(1234);
  });

  it('counts tool-call arguments as the provider sees them, so more history fits than by the reference count', () => {
    const provider = createEstimator().promptTokens(history)[0];
    expect(estimatePromptTokens(history)).toBeGreaterThan(provider);
    // A budget between the two: the default keeps everything, the reference snips.
    const budget = provider + 2;
    const ours = govern(history, { contextWindowTokens: 100_000, contextBlockLimit: budget });
    expect(ours.messages).toBe(history);
    expect(checkLegality(ours.messages, { budget })).toEqual([]);
    expect(govern(history, { contextWindowTokens: 100_000, contextBlockLimit: budget, compat: 'reference' }).messages.length).toBeLessThan(history.length);
  });

  it('rejects options of the wrong type with a ValidationError', () => {
    expect(() => govern(history, { model: 42 } as unknown as GovernOptions)).toThrow(ValidationError);
    expect(() => govern(history, { models: 'gpt-4o' } as unknown as GovernOptions)).toThrow(ValidationError);
    expect(() => govern(history, { models: [{ id: 'x' }] } as unknown as GovernOptions)).toThrow(ValidationError);
    expect(() => govern(history, { tokenizer: 'gpt2' } as unknown as GovernOptions)).toThrow(ValidationError);
    expect(() => govern(history, { estimator: {} } as unknown as GovernOptions)).toThrow(ValidationError);
  });
});
