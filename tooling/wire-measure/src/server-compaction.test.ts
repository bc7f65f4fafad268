// Anthropic's server-side compaction block as the AI SDK carries it (@ai-sdk/anthropic: a text
// part marked `providerOptions.anthropic.type: 'compaction'`), governed with @nanobot/ai-sdk at
// tight budgets and sent through the real provider package to the local Messages stand-in: no
// violation, the newest block sent as stored, the newest user turn kept.
import { createAnthropic } from '@ai-sdk/anthropic';
import { generateText, jsonSchema, tool, type ModelMessage } from 'ai';
import { governModelMessages } from '@nanobot/ai-sdk';
import { startAnthropicServer, type WireServer } from '@nanobot-internal/provider-wire';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const talk = (n: number, words: number) => `${n}: ${'the build cache goes stale after a rebase and the tests pick up old fixtures '.repeat(words)}`;
const summary = (n: number) => ({ type: 'text' as const, text: `Summary ${talk(n, 5)}`, providerOptions: { anthropic: { type: 'compaction' } } });
const turn = (n: number): ModelMessage[] => [
  { role: 'user', content: `Question ${talk(n, 6)}` },
  { role: 'assistant', content: [{ type: 'tool-call', toolCallId: `toolu_${n}`, toolName: 'exec', input: { cmd: 'make' } }] },
  { role: 'tool', content: [{ type: 'tool-result', toolCallId: `toolu_${n}`, toolName: 'exec', output: { type: 'text', value: `make: ${talk(n, 10)}` } }] },
  { role: 'assistant', content: `Answer ${talk(n, 4)}` },
];
const compacted = (n: number): ModelMessage => ({ role: 'assistant', content: [summary(n), { type: 'text', text: `Continuing after compaction ${n}.` }] });
const histories: [string, ModelMessage[]][] = [
  ['two compactions, the newest in a past turn', [...[0, 1, 2].flatMap(turn), { role: 'user', content: 'Keep going.' }, compacted(1), ...[3, 4].flatMap(turn), { role: 'user', content: 'More.' }, compacted(2), ...[5, 6, 7, 8].flatMap(turn), { role: 'user', content: 'What next?' }]],
  ['the compaction right before the newest user turn', [...[0, 1, 2, 3, 4, 5].flatMap(turn), { role: 'user', content: 'Keep going.' }, compacted(3), { role: 'user', content: 'What next?' }]],
];

let server: WireServer;
beforeAll(async () => {
  server = await startAnthropicServer();
});
afterAll(() => server.stop());

describe('Anthropic compaction blocks through @ai-sdk/anthropic', () => {
  it.each(histories)('%s: 0 violations at 8000 / 3000 / 1500 / 900 tokens, the newest block as stored, the newest user turn kept', async (_name, history) => {
    const model = createAnthropic({ baseURL: `${server.url}/v1`, apiKey: 'sk-ant-local' })('claude-sonnet-4-5-20250929');
    const parts = [...history].reverse().flatMap((m) => (Array.isArray(m.content) ? (m.content as readonly { text?: string; providerOptions?: { anthropic?: { type?: unknown } } }[]) : []));
    const newest = parts.find((p) => p.providerOptions?.anthropic?.type === 'compaction')!;
    let decided = 0;
    for (const budget of [8_000, 3_000, 1_500, 900]) {
      const { messages, report } = governModelMessages(history, { target: 'anthropic', contextWindowTokens: 200_000, contextBlockLimit: budget });
      await generateText({ model, messages, tools: { exec: tool({ inputSchema: jsonSchema({ type: 'object', additionalProperties: true }) }) }, maxRetries: 0 });
      const sent = server.requests.at(-1)!;
      expect(sent.violations, `budget ${budget}`).toEqual([]);
      const body = sent.body as { messages: { role: string; content: unknown }[] };
      const blocks = body.messages.flatMap((m) => (Array.isArray(m.content) ? (m.content as { type?: unknown; content?: unknown }[]) : []));
      expect(blocks.some((b) => b.type === 'compaction' && b.content === newest.text), `budget ${budget}`).toBe(true);
      expect(JSON.stringify(body.messages.at(-1))).toContain('What next?');
      if (report.cut?.serverCompaction !== undefined) decided++;
    }
    expect(decided).toBeGreaterThan(0);
  });
});
