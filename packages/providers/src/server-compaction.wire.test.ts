// Histories holding server-side compaction anchors (Anthropic compaction blocks, Responses
// compaction items), governed at tight budgets and sent through the official SDKs to the local
// stand-ins, which verify each anchor byte-exact and every other rule of the API: no violation,
// the newest anchor sent as it was stored, the newest user turn kept. (Here, beside the SDKs:
// only this package imports them.)
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { anthropicCompactionContent, responsesCompactionContent, responsesEncryptedContent, startAnthropicServer, startResponsesServer, wireSignature, type WireServer } from '@nanobot-internal/provider-wire';
import { deepFreeze } from '@nanobot-internal/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { governAnthropic, type AnthropicMessageLike } from '@nanobot/governor/anthropic';
import { governResponses, type ResponsesItemLike } from '@nanobot/governor/responses';

const BUDGETS = [8_000, 3_000, 1_500, 900];
const WINDOW = { contextWindowTokens: 200_000 };
const talk = (n: number, words: number) => `${n}: ${'the build cache goes stale after a rebase and the tests pick up old fixtures '.repeat(words)}`;

let anthropicServer: WireServer;
let responsesServer: WireServer;
beforeAll(async () => {
  anthropicServer = await startAnthropicServer();
  responsesServer = await startResponsesServer();
});
afterAll(async () => {
  await anthropicServer.stop();
  await responsesServer.stop();
});

describe('Anthropic compaction blocks through @anthropic-ai/sdk', () => {
  const block = (summary: string) => ({ type: 'compaction', content: summary, encrypted_content: anthropicCompactionContent(summary) });
  const thinking = (text: string) => ({ type: 'thinking', thinking: text, signature: wireSignature('anthropic-thinking', text) });
  const turn = (n: number): AnthropicMessageLike[] => [
    { role: 'user', content: `Question ${talk(n, 6)}` },
    { role: 'assistant', content: [thinking(`Run make for ${n}.`), { type: 'tool_use', id: `toolu_${n}`, name: 'exec', input: { cmd: 'make' } }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: `toolu_${n}`, content: `make: ${talk(n, 10)}` }] },
    { role: 'assistant', content: `Answer ${talk(n, 4)}` },
  ] as AnthropicMessageLike[];
  const compacted = (n: number): AnthropicMessageLike => ({ role: 'assistant', content: [block(`Summary ${talk(n, 5)}`), { type: 'text', text: `Continuing after compaction ${n}.` }] }) as AnthropicMessageLike;
  // Two compactions (the newest is the anchor), turns before, between and after them.
  const histories: [string, AnthropicMessageLike[]][] = [
    ['anchor in a past turn', [...[0, 1, 2].flatMap(turn), { role: 'user', content: 'Keep going.' }, compacted(1), ...[3, 4].flatMap(turn), { role: 'user', content: 'More.' }, compacted(2), ...[5, 6, 7, 8].flatMap(turn), { role: 'user', content: 'What next?' }]],
    ['anchor right before the newest user turn', [...[0, 1, 2, 3, 4, 5].flatMap(turn), { role: 'user', content: 'Keep going.' }, compacted(3), { role: 'user', content: 'What next?' }]],
    ['anchor turn that called a tool', [...[0, 1, 2].flatMap(turn), { role: 'user', content: 'Keep going.' }, { role: 'assistant', content: [block(`Summary ${talk(9, 5)}`), { type: 'tool_use', id: 'toolu_after', name: 'exec', input: { cmd: 'ls' } }] } as unknown as AnthropicMessageLike, { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_after', content: 'a b c' }] } as unknown as AnthropicMessageLike, ...[10, 11, 12, 13, 14].flatMap(turn), { role: 'user', content: 'What next?' }]],
  ];

  it.each(histories)('%s: 0 violations at every budget, the newest block sent as stored, the newest user turn kept', async (_name, stored) => {
    const messages = deepFreeze(stored);
    const newest = JSON.stringify([...messages].reverse().flatMap((m) => (Array.isArray(m.content) ? m.content : [])).find((b) => (b as { type?: unknown }).type === 'compaction'));
    const client = new Anthropic({ baseURL: anthropicServer.url, apiKey: 'sk-ant-local', maxRetries: 0 });
    let cuts = 0;
    for (const budget of BUDGETS) {
      const out = governAnthropic({ system: 'You are nanobot.', messages }, { ...WINDOW, contextBlockLimit: budget });
      await client.messages.create({ model: 'claude-sonnet-4-5-20250929', max_tokens: 1024, system: 'You are nanobot.', messages: out.messages as Anthropic.MessageParam[] });
      const sent = anthropicServer.requests.at(-1)!;
      expect(sent.violations, `budget ${budget}`).toEqual([]);
      const body = sent.body as { messages: { role: string; content: unknown }[] };
      expect(JSON.stringify(body.messages), `budget ${budget}`).toContain(newest);
      // The newest user turn (merged after the anchor's tool results when only it is kept).
      expect(JSON.stringify(body.messages.at(-1))).toContain('What next?');
      if (out.report.cut?.serverCompaction !== undefined) cuts++;
    }
    expect(cuts).toBeGreaterThan(0);
  });
});

describe('Responses compaction items through the openai SDK', () => {
  const compaction = (id: string) => ({ type: 'compaction', id, encrypted_content: responsesCompactionContent(id) });
  const reasoning = (id: string) => ({ type: 'reasoning', id, summary: [], encrypted_content: responsesEncryptedContent(id) });
  const turn = (n: number) => [
    { role: 'user', content: `Question ${talk(n, 6)}` },
    reasoning(`rs_${n}`), { type: 'function_call', call_id: `call_${n}`, name: 'exec', arguments: '{"cmd":"make"}' },
    { type: 'function_call_output', call_id: `call_${n}`, output: `make: ${talk(n, 10)}` },
    { type: 'message', id: `msg_${n}`, role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: `Answer ${talk(n, 4)}`, annotations: [] }] },
  ];
  const histories: [string, unknown[]][] = [
    // Server-side compaction: the item in the output stream, before the reply.
    ['server-side compaction in a past turn', [...[0, 1, 2].flatMap(turn), { role: 'user', content: 'Keep going.' }, compaction('cmp_1'), ...[3, 4].flatMap(turn), { role: 'user', content: 'More.' }, compaction('cmp_2'), ...[5, 6, 7, 8].flatMap(turn), { role: 'user', content: 'What next?' }]],
    // /responses/compact: the user messages, then the compaction item; the next user message after it.
    ['a /responses/compact window', [...[0, 1, 2, 3, 4, 5].flatMap(turn), { role: 'user', content: 'Question 0' }, { role: 'user', content: 'Question 1' }, compaction('cmp_3'), { role: 'user', content: 'What next?' }]],
    ['compaction inside the current tool loop', [...[0, 1, 2].flatMap(turn), { role: 'user', content: 'What next?' }, reasoning('rs_a'), { type: 'function_call', call_id: 'call_a', name: 'exec', arguments: '{}' }, { type: 'function_call_output', call_id: 'call_a', output: talk(20, 10) }, compaction('cmp_4'), ...[30, 31, 32, 33].flatMap((n) => turn(n).slice(1, 4))]],
  ];

  it.each(histories)('%s: 0 violations at every budget, the newest item sent as stored, the newest user turn kept', async (_name, stored) => {
    const input = deepFreeze(stored as ResponsesItemLike[]);
    const newest = [...input].reverse().find((it) => it.type === 'compaction')!;
    const lastUser = [...input].reverse().find((it) => (it as { role?: unknown }).role === 'user')!;
    const client = new OpenAI({ baseURL: `${responsesServer.url}/v1`, apiKey: 'sk-local', maxRetries: 0 });
    let cuts = 0;
    for (const budget of BUDGETS) {
      const out = governResponses(input, { ...WINDOW, contextBlockLimit: budget });
      await client.responses.create({ model: 'gpt-5', store: false, input: out.input as OpenAI.Responses.ResponseInputItem[] });
      const sent = responsesServer.requests.at(-1)!;
      expect(sent.violations, `budget ${budget}`).toEqual([]);
      const items = (sent.body as { input: unknown[] }).input;
      expect(items, `budget ${budget}`).toContainEqual(newest);
      // A cut never keeps what precedes the newest item: it comes first (after the newest user message when that precedes it).
      if (out.report.cut?.serverCompaction !== undefined) expect(items.slice(0, 2)).toContainEqual(newest);
      expect(items, `budget ${budget}`).toContainEqual(lastUser);
      if (out.report.cut?.serverCompaction !== undefined) cuts++;
    }
    expect(cuts).toBeGreaterThan(0);
  });
});
