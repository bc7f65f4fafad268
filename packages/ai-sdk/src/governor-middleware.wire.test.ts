// The middleware in front of the real @ai-sdk/openai and @ai-sdk/anthropic providers, talking
// to local wire servers that enforce the APIs' message rules.
import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { deepFreeze } from '@nanobot-internal/test-support';
import { APICallError, generateText, jsonSchema, stepCountIs, tool, wrapLanguageModel, type ModelMessage } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { governModelMessages } from './govern-model-messages.js';
import { governorMiddleware } from './governor-middleware.js';
import { startAnthropicServer, startOpenAIServer, type WireServer } from './test-support/wire-server.js';

// A history the SDK itself accepts but both APIs refuse (a result whose call the application
// snipped away), with one huge result.
const history: ModelMessage[] = deepFreeze([
  { role: 'user', content: 'What is in the logs?' },
  { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'gone', toolName: 'exec', output: { type: 'text', value: 'orphaned output' } }] },
  { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'call_1', toolName: 'exec', input: { command: 'cat app.log' } }] },
  { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'call_1', toolName: 'exec', output: { type: 'text', value: 'line\n'.repeat(20_000) } }] },
  { role: 'assistant', content: 'The log is long.' },
  { role: 'user', content: 'Summarise it.' },
]);

let openaiServer: WireServer;
let anthropicServer: WireServer;
beforeAll(async () => {
  openaiServer = await startOpenAIServer();
  anthropicServer = await startAnthropicServer();
});
afterAll(async () => {
  await openaiServer.close();
  await anthropicServer.close();
});

const openai = () => createOpenAI({ apiKey: 'test', baseURL: `${openaiServer.url}/v1` }).chat('gpt-4o-mini');
const anthropic = () => createAnthropic({ apiKey: 'test', baseURL: `${anthropicServer.url}/v1` })('claude-sonnet-4-5');

describe.each([
  ['OpenAI chat completions', openai, () => openaiServer],
  ['Anthropic messages', anthropic, () => anthropicServer],
] as const)('governorMiddleware with %s', (_name, makeModel, server) => {
  it('raw, the API refuses the history; through the middleware it is accepted, with the huge result cut', async () => {
    const before = server().requests.length;
    const refused = await generateText({ model: makeModel(), messages: history, maxRetries: 0 }).then(() => null, (e: unknown) => e);
    expect(APICallError.isInstance(refused)).toBe(true);
    expect(server().requests[before].violations.length).toBeGreaterThan(0);

    const reports: unknown[] = [];
    const model = wrapLanguageModel({ model: makeModel(), middleware: governorMiddleware({ maxToolResultChars: 2_000, onReport: (r) => reports.push(r) }) });
    const { text } = await generateText({ model, messages: history, maxRetries: 0 });
    expect(text).toBe('ok');
    const sent = server().requests[server().requests.length - 1];
    expect(sent.violations).toEqual([]);
    const body = JSON.stringify(sent.body);
    expect(body).not.toContain('orphaned output');
    expect(body.length).toBeLessThan(10_000);
    expect(body).toContain('Summarise it.');
    expect(reports).toHaveLength(1);
  });

  it('a stored history with a call that never got its result goes through after governModelMessages', async () => {
    const stored: ModelMessage[] = deepFreeze([
      { role: 'user', content: 'list files' },
      { role: 'assistant', content: [{ type: 'text', text: 'Listing.' }, { type: 'tool-call', toolCallId: 'c9', toolName: 'exec', input: { command: 'ls' } }] },
      { role: 'user', content: 'well?' },
    ]);
    const { messages } = governModelMessages(stored);
    const { text } = await generateText({ model: makeModel(), messages, maxRetries: 0 });
    expect(text).toBe('ok');
    expect(server().requests[server().requests.length - 1].violations).toEqual([]);
  });
});

describe('a system message in mid-history (recorded sessions have them)', () => {
  const midSystem: ModelMessage[] = deepFreeze([
    { role: 'system', content: 'You are terse.' },
    { role: 'user', content: 'hi' },
    { role: 'assistant', content: 'hello' },
    { role: 'system', content: 'The user is now on mobile: keep answers short.' },
    { role: 'user', content: 'what now?' },
  ]);

  it('raw, the Anthropic provider refuses it; governed for any target it becomes a marked user note and goes through', async () => {
    const refused = await generateText({ model: anthropic(), messages: midSystem, maxRetries: 0, allowSystemInMessages: true }).then(() => null, (e: unknown) => e);
    expect(refused).toBeInstanceOf(Error);
    const { messages, report } = governModelMessages(midSystem);
    // The note and the user turn after it are one user turn (Anthropic alternates strictly).
    expect(messages.slice(0, 3)).toEqual(midSystem.slice(0, 3));
    expect(messages[3]).toEqual({ role: 'user', content: '[System message]\nThe user is now on mobile: keep answers short.\n\nwhat now?' });
    expect(messages).toHaveLength(4);
    expect(report.steps.find((s) => s.step === 'legalizeForTarget')!.added).toEqual([expect.objectContaining({ reason: 'instruction-as-user-note' })]);
    const { text } = await generateText({ model: anthropic(), messages, maxRetries: 0, allowSystemInMessages: true });
    expect(text).toBe('ok');
    const sent = anthropicServer.requests[anthropicServer.requests.length - 1];
    expect(sent.violations).toEqual([]);
    expect(JSON.stringify(sent.body.messages)).toContain('keep answers short');
  });

  it("with target 'openai' the system message stays where it is, and OpenAI takes it", async () => {
    const { messages } = governModelMessages(midSystem, { target: 'openai' });
    expect(messages).toBe(midSystem);
    await generateText({ model: openai(), messages, maxRetries: 0, allowSystemInMessages: true });
    expect(openaiServer.requests[openaiServer.requests.length - 1].violations).toEqual([]);
  });
});

describe('governorMiddleware in a multi-step tool loop', () => {
  it('governs every step: the second call sees the huge tool output cut, the budget reserves the call\'s maxOutputTokens', async () => {
    let step = 0;
    const server = await startOpenAIServer(() =>
      step++ === 0
        ? { role: 'assistant', content: null, tool_calls: [{ id: 'call_a', type: 'function', function: { name: 'dump', arguments: '{"n":1}' } }] }
        : { role: 'assistant', content: 'summarised' },
    );
    try {
      const reports: { budget: number; steps: { step: string; toolResults: { action: string }[] }[] }[] = [];
      const model = wrapLanguageModel({
        model: createOpenAI({ apiKey: 'test', baseURL: `${server.url}/v1` }).chat('gpt-4o-mini'),
        middleware: governorMiddleware({ contextWindowTokens: 16_000, maxToolResultChars: 1_000, onReport: (r) => reports.push(r) }),
      });
      const { text, steps } = await generateText({
        model,
        prompt: 'dump the data',
        tools: { dump: tool({ inputSchema: jsonSchema<{ n: number }>({ type: 'object', properties: { n: { type: 'number' } } }), execute: async () => 'x'.repeat(50_000) }) },
        stopWhen: stepCountIs(3),
        maxOutputTokens: 2_000,
        maxRetries: 0,
      });
      expect(text).toBe('summarised');
      expect(steps).toHaveLength(2);
      expect(server.requests.map((r) => r.violations)).toEqual([[], []]);
      const second = server.requests[1].body as { messages: { role: string; content: string }[] };
      const toolMessage = second.messages.find((m) => m.role === 'tool')!;
      expect(toolMessage.content.length).toBeLessThan(2_000);
      expect(reports).toHaveLength(2);
      expect(reports[0].budget).toBe(16_000 - 2_000 - 1024);
      expect(reports[1].steps.find((s) => s.step === 'applyToolResultBudget')!.toolResults).toEqual([expect.objectContaining({ action: 'truncated' })]);
    } finally {
      await server.close();
    }
  });
});
