// The target comes from the wrapped model: the provider ids of the real @ai-sdk/* packages map
// to the governor's targets, and the middleware governs each call for its model's provider.
import { createAmazonBedrock } from '@ai-sdk/amazon-bedrock';
import { createAnthropic } from '@ai-sdk/anthropic';
import { createDeepSeek } from '@ai-sdk/deepseek';
import { createGoogleGenerativeAI } from '@ai-sdk/google';
import { createMistral } from '@ai-sdk/mistral';
import { createOpenAI } from '@ai-sdk/openai';
import type { LanguageModelV3, LanguageModelV3Prompt } from '@ai-sdk/provider';
import type { GovernReport } from '@nanobot/governor';
import type { ModelMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import { governModelMessages } from './govern-model-messages.js';
import { governorMiddleware } from './governor-middleware.js';
import { governorTargetFor } from './governor-target-for.js';

const models: [string, LanguageModelV3][] = [
  ['gemini', createGoogleGenerativeAI({ apiKey: 'k' })('gemini-3-pro-preview') as LanguageModelV3],
  ['bedrock', createAmazonBedrock({ region: 'us-east-1', accessKeyId: 'a', secretAccessKey: 's' })('us.anthropic.claude-sonnet-4-5-20250929-v1:0') as LanguageModelV3],
  ['mistral', createMistral({ apiKey: 'k' })('mistral-large-latest') as LanguageModelV3],
  ['deepseek', createDeepSeek({ apiKey: 'k' })('deepseek-chat') as LanguageModelV3],
  ['openai', createOpenAI({ apiKey: 'k' }).chat('gpt-4.1') as LanguageModelV3],
  ['responses', createOpenAI({ apiKey: 'k' }).responses('gpt-5') as LanguageModelV3],
  ['anthropic', createAnthropic({ apiKey: 'k' })('claude-sonnet-4-5') as LanguageModelV3],
];

const history: ModelMessage[] = [
  { role: 'user', content: 'run it' },
  { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'toolu_01XYZ', toolName: 'exec', input: {} }] },
  { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'toolu_01XYZ', toolName: 'exec', output: { type: 'text', value: 'exit 1' } }] },
  { role: 'user', content: 'the environment says it failed' },
];

describe('governorTargetFor', () => {
  it.each(models)('maps the real %s model\'s provider id', (target, model) => {
    expect(governorTargetFor(model.provider)).toBe(target);
  });

  it('leaves unknown providers to the governor default', () => {
    expect(governorTargetFor('my-gateway.chat')).toBeUndefined();
    expect(governorTargetFor(undefined)).toBeUndefined();
    expect(governorTargetFor('openrouter')).toBe('openrouter');
    expect(governorTargetFor('vertex.anthropic.messages')).toBe('anthropic');
    expect(governorTargetFor('azure.responses')).toBe('responses');
  });
});

describe('inferred targets', () => {
  it.each(models)('the middleware governs a call to %s with that target', async (target, model) => {
    const reports: GovernReport[] = [];
    const middleware = governorMiddleware({ onReport: (r) => reports.push(r) });
    const prompt: LanguageModelV3Prompt = [
      { role: 'user', content: [{ type: 'text', text: 'run it' }] },
      { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'toolu_01XYZ', toolName: 'exec', input: {} }] },
      { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'toolu_01XYZ', toolName: 'exec', output: { type: 'text', value: 'exit 1' } }] },
      { role: 'user', content: [{ type: 'text', text: 'the environment says it failed' }] },
    ];
    const out = await middleware.transformParams!({ type: 'generate', params: { prompt }, model });
    expect(reports[0].target).toBe(target);
    if (target === 'mistral') {
      // 9-alphanumeric ids on call and result, and an assistant turn between result and user.
      expect(out.prompt.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'user']);
      const call = out.prompt[1].content[0] as { toolCallId: string };
      expect(call.toolCallId).toMatch(/^[a-zA-Z0-9]{9}$/);
      expect((out.prompt[2].content[0] as { toolCallId: string }).toolCallId).toBe(call.toolCallId);
    }
  });

  it('an explicit target wins over the model', async () => {
    const reports: GovernReport[] = [];
    const middleware = governorMiddleware({ target: 'openai', onReport: (r) => reports.push(r) });
    await middleware.transformParams!({ type: 'generate', params: { prompt: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }] }, model: models[2][1] });
    expect(reports[0].target).toBe('openai');
  });

  it('governModelMessages takes the provider id', () => {
    const { messages, report } = governModelMessages(history, { provider: 'google.generative-ai' });
    expect(report.target).toBe('gemini');
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'user']);
    expect(governModelMessages(history).report.target).toBe('any');
  });
});
