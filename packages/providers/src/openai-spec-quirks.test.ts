import { startOpenAIChatServer } from '@nanobot-internal/provider-wire';
import type { Message } from '@nanobot/schema';
import { describe, expect, it } from 'vitest';
import { OpenAICompatProvider } from './openai-compat-provider.js';
import { modelThinkingStyle } from './openai-spec-quirks.js';
import { findProviderSpec } from './registry/find-provider-spec.js';
import type { ProviderSpec } from './registry/provider-spec.js';

// Per-model thinking styles and OpenRouter's `reasoning: { effort }`, as the reference's
// OpenAI-compatible provider builds them (nanobot/providers/openai_compat_provider.py,
// `_build_kwargs`, at 3852956a).

const history: Message[] = [
  { role: 'user', content: 'hi' },
  { role: 'assistant', content: 'hello' },
  { role: 'user', content: 'and now?' },
];

function body(provider: string, model: string, request: { reasoningEffort?: string | null; temperature?: number; maxTokens?: number } = {}): Record<string, unknown> {
  const spec = findProviderSpec(provider) as ProviderSpec;
  return new OpenAICompatProvider({ model, apiKey: 'k', spec, name: provider }).buildParams({ messages: history, ...request });
}

describe('per-model thinking styles', () => {
  it('Kimi and MiMo switch thinking with thinking.type, Qwen 3.5+ with enable_thinking, whoever serves them', () => {
    expect(modelThinkingStyle('kimi-k2.6')).toBe('thinking_type');
    expect(modelThinkingStyle('moonshotai/kimi-k2.7-code')).toBe('thinking_type');
    expect(modelThinkingStyle('mimo-v2.5-pro')).toBe('thinking_type');
    expect(modelThinkingStyle('mimo-v2-flash')).toBe('');
    expect(modelThinkingStyle('qwen/qwen3.6-plus')).toBe('enable_thinking');
    expect(modelThinkingStyle('gpt-5.4')).toBe('');
  });

  it("Moonshot's thinking Kimis get thinking.type and never reasoning_effort (Moonshot refuses both); K2.5/K2.6 no temperature", () => {
    expect(body('moonshot', 'kimi-k2.6', { reasoningEffort: 'high', temperature: 0.3 })).toMatchObject({ thinking: { type: 'enabled' } });
    const k26 = body('moonshot', 'kimi-k2.6', { reasoningEffort: 'high', temperature: 0.3 });
    expect(k26).not.toHaveProperty('reasoning_effort');
    expect(k26).not.toHaveProperty('temperature');
    expect(body('moonshot', 'kimi-k2.6', { reasoningEffort: 'none' })).toMatchObject({ thinking: { type: 'disabled' } });
    // Models that always think are never switched off; K2.7 keeps its fixed temperature 1.0.
    const code = body('moonshot', 'kimi-k2.7-code', { reasoningEffort: 'none', temperature: 0.2 });
    expect(code).not.toHaveProperty('thinking');
    expect(code).toMatchObject({ temperature: 1 });
    // Without an effort the provider's default stays: no switch at all.
    expect(body('moonshot', 'kimi-k2.6')).not.toHaveProperty('thinking');
  });

  it('Kimi K3 accepts only reasoning_effort "max", no temperature, max_completion_tokens', () => {
    const k3 = body('moonshot', 'kimi-k3', { reasoningEffort: 'low', temperature: 0.5, maxTokens: 100 });
    expect(k3).toMatchObject({ reasoning_effort: 'max', max_completion_tokens: 100 });
    expect(k3).not.toHaveProperty('temperature');
    expect(k3).not.toHaveProperty('max_tokens');
    expect(body('moonshot', 'kimi-k3', { reasoningEffort: 'minimal' })).not.toHaveProperty('reasoning_effort');
  });

  it('DashScope: enable_thinking by effort, "minimal" sent as its "minimum"; MiMo keeps reasoning_effort beside thinking', () => {
    expect(body('dashscope', 'qwen3.6-plus', { reasoningEffort: 'minimal' })).toMatchObject({ reasoning_effort: 'minimum', enable_thinking: false });
    expect(body('dashscope', 'qwen3.6-plus', { reasoningEffort: 'high' })).toMatchObject({ reasoning_effort: 'high', enable_thinking: true });
    expect(body('xiaomi_mimo', 'mimo-v2.5', { reasoningEffort: 'high' })).toMatchObject({ reasoning_effort: 'high', thinking: { type: 'enabled' } });
  });

  it('GPT-5 and the o-series get no temperature and max_completion_tokens from any provider', () => {
    const viaOpenRouter = body('openrouter', 'openai/gpt-5.4-mini', { temperature: 0.2, maxTokens: 50 });
    expect(viaOpenRouter).toMatchObject({ max_completion_tokens: 50 });
    expect(viaOpenRouter).not.toHaveProperty('temperature');
    expect(body('openai', 'gpt-4.1', { temperature: 0.2, maxTokens: 50 })).toMatchObject({ temperature: 0.2, max_completion_tokens: 50 });
    expect(body('deepseek', 'deepseek-chat', { temperature: 0.2, maxTokens: 50 })).toMatchObject({ temperature: 0.2, max_tokens: 50 });
  });

  it('thinking on: assistant turns without reasoning_content get "" (DeepSeek V4 always)', () => {
    const assistants = (b: Record<string, unknown>) => (b.messages as Message[]).filter((m) => m.role === 'assistant');
    expect(assistants(body('deepseek', 'deepseek-v4-flash'))).toEqual([{ role: 'assistant', content: 'hello', reasoning_content: '' }]);
    expect(assistants(body('deepseek', 'deepseek-v4-flash', { reasoningEffort: 'none' }))[0]).not.toHaveProperty('reasoning_content');
    expect(assistants(body('moonshot', 'kimi-k2.6', { reasoningEffort: 'high' }))[0]).toMatchObject({ reasoning_content: '' });
    expect(assistants(body('openai', 'gpt-4.1', { reasoningEffort: 'high' }))[0]).not.toHaveProperty('reasoning_content');
  });
});

describe("OpenRouter's reasoning: { effort }", () => {
  it('goes with the thinking switch of models that have one (Kimi, MiMo, Qwen), with the effort in OpenAI words', () => {
    const kimi = body('openrouter', 'moonshotai/kimi-k2.6', { reasoningEffort: 'low' });
    expect(kimi).toMatchObject({ thinking: { type: 'enabled' }, reasoning: { effort: 'low' } });
    expect(kimi).not.toHaveProperty('reasoning_effort');
    expect(body('openrouter', 'qwen/qwen3.6-plus', { reasoningEffort: 'None' })).toMatchObject({ enable_thinking: false, reasoning: { effort: 'none' } });
    // An always-thinking model is not told to stop.
    const code = body('openrouter', 'moonshotai/kimi-k2.7-code', { reasoningEffort: 'none' });
    expect(code).not.toHaveProperty('reasoning');
    expect(code).not.toHaveProperty('thinking');
  });

  it('other models keep reasoning_effort; nothing without an effort', () => {
    const claude = body('openrouter', 'anthropic/claude-sonnet-4.6', { reasoningEffort: 'high' });
    expect(claude).toMatchObject({ reasoning_effort: 'high' });
    expect(claude).not.toHaveProperty('reasoning');
    expect(body('openrouter', 'moonshotai/kimi-k2.6')).not.toHaveProperty('reasoning');
  });

  it('is what OpenRouter takes (the stand-in finds no broken rule), through the openai SDK', async () => {
    const server = await startOpenAIChatServer({ vendor: 'openrouter' });
    try {
      const provider = new OpenAICompatProvider({ model: 'moonshotai/kimi-k2.6', apiKey: 'sk-or-k', baseUrl: `${server.url}/api/v1`, spec: findProviderSpec('openrouter') as ProviderSpec, name: 'openrouter' });
      const answer = await provider.chat({ messages: history, reasoningEffort: 'medium' });
      expect(answer.finishReason).toBe('stop');
      expect(server.requests[0].violations).toEqual([]);
      expect(server.requests[0].body).toMatchObject({ model: 'moonshotai/kimi-k2.6', thinking: { type: 'enabled' }, reasoning: { effort: 'medium' } });
    } finally {
      await server.stop();
    }
  });
});
