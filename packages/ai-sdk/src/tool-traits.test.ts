import { generateText, jsonSchema, tool, wrapLanguageModel, type LanguageModelMiddleware } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ConfigurationError, DEFAULT_REREADABLE_OUTPUT } from '@nanobot/schema';
import { createGovernor, type GovernOptions } from '@nanobot/governor';
import { aiSdkToolTraits, governorMiddleware, nanobotToolTraits, type GovernedCallOptions } from './index.js';
import { mockModel } from './test-support/mock-model.js';

const tools = {
  // A user's own tool that happens to be called read_file: no declaration, no special treatment.
  read_file: tool({ description: 'my reader', inputSchema: z.object({ path: z.string() }), execute: async () => 'x' }),
  read_log: tool({
    description: 'paged log reader',
    inputSchema: jsonSchema<{ offset?: number; limit?: number }>({ type: 'object', properties: { offset: { type: 'integer' }, limit: { type: 'integer' } } }),
    providerOptions: { ...nanobotToolTraits({ readOnly: true, compactable: true, rereadable: true }), openai: { strict: false } },
    execute: async () => 'lines',
  }),
  search: tool({ description: 'search', inputSchema: z.object({ q: z.string() }), providerOptions: nanobotToolTraits({ compactable: true }), execute: async () => 'hits' }),
};

describe('declaring traits on AI SDK tools', () => {
  it('the `nanobot` providerOptions entry reaches a middleware through the real SDK, and reads back as traits', async () => {
    let seen: Parameters<NonNullable<LanguageModelMiddleware['transformParams']>>[0]['params']['tools'];
    const capture: LanguageModelMiddleware = {
      specificationVersion: 'v3',
      transformParams: async ({ params }) => {
        seen = params.tools;
        return params;
      },
    };
    await generateText({ model: wrapLanguageModel({ model: mockModel(), middleware: capture }), prompt: 'hi', tools });
    const traits = aiSdkToolTraits(seen);
    expect(Object.keys(traits).sort()).toEqual(['read_log', 'search']);
    expect(traits.read_log).toEqual({ readOnly: true, compactable: true, rereadable: DEFAULT_REREADABLE_OUTPUT });
    expect(traits.search).toEqual({ readOnly: false, compactable: true, rereadable: null });
    expect(traits.read_file).toBeUndefined();
  });

  it('reads a ToolSet the same way (for governModelMessages)', () => {
    const traits = aiSdkToolTraits(tools);
    expect(traits.read_log.rereadable).toEqual(DEFAULT_REREADABLE_OUTPUT);
    expect(Object.keys(traits).sort()).toEqual(['read_log', 'search']);
    expect(aiSdkToolTraits(undefined)).toEqual({});
  });

  it('refuses a declaration that cannot work, at declaration and when read', () => {
    expect(() => nanobotToolTraits({ rereadable: { unit: 'pages' as never } })).toThrow(ConfigurationError);
    const declaredByHand = [
      { type: 'function', name: 'cat', inputSchema: { type: 'object', properties: { path: {} } }, providerOptions: { nanobot: { rereadable: true } } },
    ];
    expect(() => aiSdkToolTraits(declaredByHand)).toThrow(/'cat'.*'offset'/);
  });

  it('nanobotToolTraits returns JSON only, without the fields left out', () => {
    const options = nanobotToolTraits({ compactable: true, rereadable: { offsetParam: 'from', limitParam: 'n' } });
    expect(JSON.parse(JSON.stringify(options))).toEqual({ nanobot: { compactable: true, rereadable: { offsetParam: 'from', limitParam: 'n' } } });
  });

  it('governorMiddleware sizes results by the declared traits, not by the name (issue 29)', async () => {
    const big = 'a line of a long tool result\n'.repeat(900);
    const prompt = [
      { role: 'user' as const, content: [{ type: 'text' as const, text: 'read' }] },
      { role: 'assistant' as const, content: [{ type: 'tool-call' as const, toolCallId: 'c1', toolName: 'read_file', input: { path: 'x' } }, { type: 'tool-call' as const, toolCallId: 'c2', toolName: 'read_log', input: { offset: 10, limit: 500 } }] },
      { role: 'tool' as const, content: [
        { type: 'tool-result' as const, toolCallId: 'c1', toolName: 'read_file', output: { type: 'text' as const, value: big } },
        { type: 'tool-result' as const, toolCallId: 'c2', toolName: 'read_log', output: { type: 'text' as const, value: big } },
      ] },
    ];
    let sent: unknown;
    const model = mockModel();
    const doGenerate = model.doGenerate.bind(model);
    model.doGenerate = async (options) => {
      sent = options.prompt;
      return doGenerate(options);
    };
    await generateText({ model: wrapLanguageModel({ model, middleware: governorMiddleware({ maxToolResultChars: 2000 }) }), messages: prompt, tools });
    const results = (sent as { role: string; content: { output?: { value?: string } }[] }[]).find((m) => m.role === 'tool')!.content.map((p) => String(p.output?.value));
    // The user's own read_file is shortened like any tool (the reference would exempt it by name).
    expect(results[0].length).toBeLessThan(2300);
    expect(results[0]).toContain('[output shortened to fit the context: 2,000 of 26,100 characters shown');
    // The declared rereadable tool is cut at a line with where to read on.
    expect(results[1]).toMatch(/\[output shortened to fit the context: lines 10\u2013\d+ shown \(/);
    expect(results[1]).toMatch(/to read on, call read_log with offset=\d+ and limit=\d+\]$/);
    for (const r of results) expect(r.startsWith('Error')).toBe(false);
  });

  it('governorMiddleware hands the governor one traits table while the declarations stay the same (its memos key on it)', async () => {
    const governor = createGovernor();
    const tables: unknown[] = [];
    // The Governor records the options of the calls it governs (not the check at creation).
    const govern = governor.govern.bind(governor);
    governor.govern = (history, options?: GovernOptions) => {
      if (history.length > 0) tables.push(options?.toolTraits);
      return govern(history, options);
    };
    const middleware = governorMiddleware({ governor });
    const declared = (compactable: boolean) => [{ type: 'function' as const, name: 'search', inputSchema: { type: 'object', properties: {} }, providerOptions: nanobotToolTraits({ compactable }) }];
    const call = (compactable: boolean) => middleware.transformParams!({
      type: 'generate',
      model: mockModel(),
      params: { prompt: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }], tools: declared(compactable) } as GovernedCallOptions,
    });
    await call(true);
    await call(true);
    await call(false);
    await call(false);
    expect(tables).toHaveLength(4);
    expect(tables[1]).toBe(tables[0]);
    expect(tables[2]).not.toBe(tables[1]);
    expect(tables[2]).toEqual(aiSdkToolTraits(declared(false)));
    expect(tables[3]).toBe(tables[2]);
  });
});
