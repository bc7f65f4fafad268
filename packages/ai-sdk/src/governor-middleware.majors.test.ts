// ai 7 only (vitest.majors.config.ts, Node 22): the middleware under the V4 language-model spec,
// with what only V4 has — file data as a tagged union (URL, inline text, bytes), reasoning files,
// provider-custom parts, `file` parts inside tool results — and a real `MockLanguageModelV4`
// (no V3 model, so no conversion by the SDK stands between the middleware and the model).
import type { LanguageModelV4Prompt } from '@ai-sdk/provider';
import { generateText, wrapLanguageModel, type LanguageModelMiddleware, type ModelMessage } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { deepFreeze } from '@nanobot-internal/test-support';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { governorMiddleware, type GovernedPrompt } from './governor-middleware.js';

function v4Model(): MockLanguageModelV4 {
  return new MockLanguageModelV4({
    // Every URL is the model's own: the SDK downloads nothing.
    supportedUrls: { '*/*': [/.*/] },
    doGenerate: async () => ({
      content: [{ type: 'text', text: 'done' }],
      finishReason: { unified: 'stop', raw: undefined },
      usage: { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } },
      warnings: [],
    }),
  });
}

const user: ModelMessage = {
  role: 'user',
  content: [
    { type: 'text', text: 'Look at these.' },
    { type: 'file', data: { type: 'url', url: new URL('https://example.com/chart.png') }, mediaType: 'image/png' },
    { type: 'file', data: { type: 'text', text: 'inline notes' }, mediaType: 'text/plain', filename: 'notes.txt' },
  ],
};
const assistant: ModelMessage = {
  role: 'assistant',
  content: [
    { type: 'reasoning', text: 'Checking.', providerOptions: { anthropic: { signature: 'sig' } } },
    { type: 'reasoning-file', data: { type: 'data', data: 'AAEC' }, mediaType: 'image/png' },
    { type: 'custom', kind: 'openai.compaction', providerOptions: { openai: { id: 'cmp_1' } } },
    { type: 'tool-call', toolCallId: 'c1', toolName: 'render', input: { what: 'chart' } },
  ],
};
const result = (value: string): ModelMessage => ({
  role: 'tool',
  content: [{
    type: 'tool-result',
    toolCallId: 'c1',
    toolName: 'render',
    output: { type: 'content', value: [{ type: 'text', text: value }, { type: 'file', data: { type: 'data', data: 'AAEC' }, mediaType: 'image/png' }] },
  }],
});
const legal: ModelMessage[] = deepFreeze([{ role: 'system', content: 'Be brief.' }, user, assistant, result('rendered'), { role: 'user', content: 'And now?' }]);

async function promptSent(messages: ModelMessage[], middleware?: LanguageModelMiddleware): Promise<LanguageModelV4Prompt> {
  const model = v4Model();
  await generateText({ model: middleware ? wrapLanguageModel({ model, middleware }) : model, messages, allowSystemInMessages: true, maxRetries: 0 });
  return model.doGenerateCalls[0].prompt;
}

describe('governorMiddleware under ai 7 (V4 spec)', () => {
  it('is an ai 7 middleware whose prompt type is the V4 prompt', () => {
    expectTypeOf(governorMiddleware()).toExtend<LanguageModelMiddleware>();
    expectTypeOf<GovernedPrompt>().toEqualTypeOf<LanguageModelV4Prompt>();
    expect(wrapLanguageModel({ model: v4Model(), middleware: governorMiddleware() }).specificationVersion).toBe('v4');
  });

  it('hands a legal V4 prompt with V4-only parts to the model as the SDK built it', async () => {
    const raw = await promptSent(legal);
    const governed = await promptSent(legal, governorMiddleware());
    expect(governed).toEqual(raw);
    // The V4 parts really are in it (the SDK did not drop them before the middleware).
    const json = JSON.stringify(raw);
    for (const needle of ['"reasoning-file"', '"custom"', '"openai.compaction"', '"inline notes"', 'chart.png']) expect(json).toContain(needle);
    const params = { prompt: raw };
    expect(await governorMiddleware().transformParams!({ type: 'generate', params, model: v4Model() })).toBe(params);
  });

  it('governs a V4 prompt: an orphan result goes, a huge result is cut, every V4-only part stays as it was', async () => {
    const orphan: ModelMessage = { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'gone', toolName: 'render', output: { type: 'text', value: 'orphaned output' } }] };
    const huge: ModelMessage[] = [
      { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c2', toolName: 'exec', input: { command: 'cat app.log' } }] },
      { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c2', toolName: 'exec', output: { type: 'text', value: 'line\n'.repeat(20_000) } }] },
    ];
    const messy: ModelMessage[] = deepFreeze([legal[0], user, orphan, assistant, result('rendered'), ...huge, legal[4]]);
    const reports: unknown[] = [];
    const governed = await promptSent(messy, governorMiddleware({ maxToolResultChars: 2_000, onReport: (r) => reports.push(r) }));
    const raw = await promptSent(legal);
    expect(reports).toHaveLength(1);
    expect(JSON.stringify(governed)).not.toContain('orphaned output');
    expect(JSON.stringify(governed).length).toBeLessThan(10_000);
    // The V4-only parts reach the model exactly as the SDK builds them for the legal history.
    expect(governed.slice(0, 4)).toEqual(raw.slice(0, 4));
    expect(governed.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'assistant', 'tool', 'user']);
    const cut = governed[5].role === 'tool' ? governed[5].content[0] : undefined;
    expect(cut).toMatchObject({ type: 'tool-result', toolCallId: 'c2', output: { type: 'text' } });
    expect(cut?.type === 'tool-result' && cut.output.type === 'text' && cut.output.value.length).toBeLessThan(3_000);
    expect(governed[6]).toEqual(raw[4]);
  });
});
