import { generateText, wrapLanguageModel, type ModelMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import { NanobotError } from '@nanobot/schema';
import { governorMiddleware, type GovernedCallOptions } from './governor-middleware.js';
import { mockModel, noDownload } from './test-support/mock-model.js';

async function transform(middleware: ReturnType<typeof governorMiddleware>, params: GovernedCallOptions): Promise<GovernedCallOptions> {
  const model = mockModel();
  return middleware.transformParams!({ type: 'generate', params, model });
}

describe('governorMiddleware', () => {
  it('hands the model the prompt as the SDK built it when there is nothing to govern', async () => {
    const messages: ModelMessage[] = [
      { role: 'system', content: 'be brief' },
      { role: 'user', content: [{ type: 'text', text: 'hi' }, { type: 'image', image: new Uint8Array([1, 2]), mediaType: 'image/png' }] },
      { role: 'assistant', content: [{ type: 'reasoning', text: 'hm', providerOptions: { anthropic: { signature: 's' } } }, { type: 'text', text: 'hello' }] },
      { role: 'user', content: 'again' },
    ];
    const raw = mockModel();
    await generateText({ model: raw, messages, allowSystemInMessages: true, experimental_download: noDownload });
    const governed = mockModel();
    await generateText({ model: wrapLanguageModel({ model: governed, middleware: governorMiddleware() }), messages, allowSystemInMessages: true, experimental_download: noDownload });
    expect(governed.doGenerateCalls[0].prompt).toEqual(raw.doGenerateCalls[0].prompt);
    const params: GovernedCallOptions = { prompt: raw.doGenerateCalls[0].prompt };
    expect(await transform(governorMiddleware(), params)).toBe(params);
  });

  it('governs the provider-level prompt: orphan results dropped, results cut, new parts in the V3 shape', async () => {
    const params: GovernedCallOptions = {
      prompt: [
        { role: 'user', content: [{ type: 'text', text: 'go' }] },
        { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'gone', toolName: 'exec', output: { type: 'text', value: 'old' } }] },
        { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'exec', input: {} }, { type: 'tool-call', toolCallId: 'c2', toolName: 'exec', input: {} }] },
        { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'exec', output: { type: 'error-text', value: 'E'.repeat(5000) }, providerOptions: { x: { y: 1 } } }] },
      ],
    };
    const out = await transform(governorMiddleware({ maxToolResultChars: 100 }), params);
    expect(out).not.toBe(params);
    expect(out.prompt[0]).toBe(params.prompt[0]);
    expect(out.prompt[1]).toBe(params.prompt[2]);
    expect(out.prompt).toHaveLength(3);
    const tool = out.prompt[2];
    expect(tool.role).toBe('tool');
    const [cut, filled] = tool.content as Extract<GovernedCallOptions['prompt'][number], { role: 'tool' }>['content'];
    expect(cut).toMatchObject({ type: 'tool-result', toolCallId: 'c1', providerOptions: { x: { y: 1 } }, output: { type: 'error-text' } });
    expect(cut.type === 'tool-result' && cut.output.type === 'error-text' && cut.output.value.length).toBeLessThan(300);
    expect(filled).toMatchObject({ type: 'tool-result', toolCallId: 'c2', output: { type: 'error-text' } });
  });

  it('keeps the V3 shape (part lists) when it snips', async () => {
    // A window so small that only the newest user turn fits: the result is a V3 prompt still.
    const params: GovernedCallOptions = {
      prompt: [
        { role: 'system', content: 'sys' },
        ...Array.from({ length: 30 }, (_, i) => [
          { role: 'user' as const, content: [{ type: 'text' as const, text: `q${i} ${'w '.repeat(300)}` }] },
          { role: 'assistant' as const, content: [{ type: 'text' as const, text: `a${i} ${'w '.repeat(300)}` }] },
        ]).flat(),
        { role: 'user', content: [{ type: 'text', text: 'last' }] },
      ],
      maxOutputTokens: 500,
    };
    const out = await transform(governorMiddleware({ contextWindowTokens: 4000 }), params);
    expect(out.prompt.length).toBeLessThan(params.prompt.length);
    expect(out.prompt[0]).toBe(params.prompt[0]);
    expect(out.prompt[out.prompt.length - 1]).toBe(params.prompt[params.prompt.length - 1]);
    for (const m of out.prompt) if (m.role !== 'system') expect(Array.isArray(m.content)).toBe(true);
  });

  it('a prompt rebuilt from the same data (as each SDK step does) gives the same result, made of the new objects', async () => {
    const prompt: GovernedCallOptions['prompt'] = [
      { role: 'system', content: 'sys' },
      { role: 'user', content: [{ type: 'text', text: 'go' }] },
      { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'gone', toolName: 'exec', output: { type: 'text', value: 'old' } }] },
      { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'exec', input: { a: 1 } }] },
      { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'exec', output: { type: 'text', value: 'R'.repeat(3000) } }] },
    ];
    const rebuild = () => prompt.map((m) => (Array.isArray(m.content) ? { ...m, content: m.content.map((p) => ({ ...p })) } : { ...m })) as GovernedCallOptions['prompt'];
    const middleware = governorMiddleware({ maxToolResultChars: 500 });
    const first = await transform(middleware, { prompt: rebuild() });
    const again = rebuild();
    const second = await transform(middleware, { prompt: again });
    expect(second.prompt).toEqual(first.prompt);
    expect(second.prompt).toHaveLength(4);
    // Untouched messages are this call's own objects.
    [0, 1, 2].forEach((i) => expect(second.prompt[i]).toBe(again[i === 2 ? 3 : i]));
    expect(JSON.stringify(second.prompt[3])).not.toContain('R'.repeat(600));
  });

  it('refuses bad options when it is created, with a typed error', () => {
    expect(() => governorMiddleware({ contextWindowTokens: Number.NaN })).toThrow(NanobotError);
  });
});
