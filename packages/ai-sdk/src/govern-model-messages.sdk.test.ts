// governModelMessages and the middleware in the places the AI SDK offers: prepareStep of a
// multi-step generateText, and streamText.
import { generateText, jsonSchema, simulateReadableStream, stepCountIs, streamText, tool, wrapLanguageModel, type ModelMessage } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { governModelMessages } from './govern-model-messages.js';
import { governorMiddleware } from './governor-middleware.js';
import { generateResult, mockModel } from './test-support/mock-model.js';

const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };

describe('in the AI SDK', () => {
  it('from prepareStep: each step of a tool loop gets the governed history (results cut to size)', async () => {
    const model = mockModel(
      generateResult([{ type: 'tool-call', toolCallId: 'call_1', toolName: 'dump', input: '{}' }]),
      generateResult([{ type: 'text', text: 'summarised' }]),
    );
    const seen: number[] = [];
    const { text } = await generateText({
      model,
      prompt: 'dump it',
      tools: { dump: tool({ inputSchema: jsonSchema<Record<string, never>>({ type: 'object', properties: {} }), execute: async () => 'z'.repeat(30_000) }) },
      stopWhen: stepCountIs(3),
      prepareStep: ({ messages }) => {
        const governed = governModelMessages(messages, { maxToolResultChars: 1_000 });
        seen.push(governed.report.steps.filter((s) => s.changed).length);
        return { messages: governed.messages };
      },
    });
    expect(text).toBe('summarised');
    expect(seen).toEqual([0, 1]);
    const second = JSON.stringify(model.doGenerateCalls[1].prompt);
    expect(second.length).toBeLessThan(5_000);
    expect(second).toContain('zzz');
  });

  it('with streamText: the middleware governs the streamed call too', async () => {
    const model = new MockLanguageModelV3({
      doStream: async () => ({
        stream: simulateReadableStream({
          chunks: [
            { type: 'text-start', id: 't' },
            { type: 'text-delta', id: 't', delta: 'streamed' },
            { type: 'text-end', id: 't' },
            { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage },
          ],
        }),
      }),
    });
    const history: ModelMessage[] = [
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c', toolName: 'exec', input: {} }] },
      { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c', toolName: 'exec', output: { type: 'text', value: 'q'.repeat(20_000) } }] },
      { role: 'user', content: 'well?' },
    ];
    const result = streamText({ model: wrapLanguageModel({ model, middleware: governorMiddleware({ maxToolResultChars: 2_000 }) }), messages: history });
    expect(await result.text).toBe('streamed');
    const prompt = model.doStreamCalls[0].prompt;
    expect(prompt.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'user']);
    expect(JSON.stringify(prompt).length).toBeLessThan(5_000);
  });
});
