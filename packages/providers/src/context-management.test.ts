// Server-side context management passed through (issue 25 item 4): Anthropic context editing and
// compaction edits with their beta headers, OpenAI Responses compaction, through the real SDKs to
// a local server; nothing is added when a request has none.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Message } from '@nanobot/schema';
import { AnthropicProvider } from './anthropic-provider.js';
import { OpenAIResponsesProvider } from './openai-responses-provider.js';
import { WireServer, replyJson } from './test-support/wire-server.js';
import { message } from './test-support/anthropic-wire.js';

let server: WireServer;
beforeEach(async () => {
  server = await new WireServer().start();
});
afterEach(async () => {
  await server.stop();
});

const messages: Message[] = [{ role: 'user', content: 'hi' }];

describe('Anthropic context_management', () => {
  const provider = () => new AnthropicProvider({ model: 'claude-test', apiKey: 'k', baseUrl: server.url, retry: { maxAttempts: 1 } });

  it('sends the edits as given, with the context-management beta (and the compaction beta for a compact edit)', async () => {
    const editing = { edits: [{ type: 'clear_tool_uses_20250919', trigger: { type: 'input_tokens', value: 30_000 }, keep: { type: 'tool_uses', value: 3 } }] };
    server.enqueue(replyJson(200, message([{ type: 'text', text: 'ok' }], 'end_turn')));
    await provider().chat({ messages, contextManagement: editing });
    expect(server.requests[0].body.context_management).toEqual(editing);
    expect(server.requests[0].headers['anthropic-beta']).toBe('context-management-2025-06-27');

    const compaction = { edits: [{ type: 'compact_20260112' }] };
    server.enqueue(replyJson(200, message([{ type: 'text', text: 'ok' }], 'end_turn')));
    await provider().chat({ messages, contextManagement: compaction });
    expect(server.requests[1].body.context_management).toEqual(compaction);
    expect(server.requests[1].headers['anthropic-beta']).toBe('context-management-2025-06-27,compact-2026-01-12');
  });

  it('adds nothing without it', async () => {
    server.enqueue(replyJson(200, message([{ type: 'text', text: 'ok' }], 'end_turn')));
    await provider().chat({ messages });
    expect(server.requests[0].body).not.toHaveProperty('context_management');
    expect(server.requests[0].headers['anthropic-beta']).toBeUndefined();
  });
});

describe('OpenAI Responses context_management', () => {
  it('sends the compaction entry as given', async () => {
    const compaction = [{ type: 'compaction', compact_threshold: 200_000 }];
    server.enqueue(replyJson(200, { id: 'resp_1', object: 'response', status: 'completed', model: 'gpt-test', output: [{ type: 'message', id: 'msg_1', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'ok', annotations: [] }] }], usage: { input_tokens: 3, output_tokens: 1, total_tokens: 4 } }));
    const p = new OpenAIResponsesProvider({ model: 'gpt-test', apiKey: 'k', baseUrl: `${server.url}/v1`, retry: { maxAttempts: 1 } });
    const r = await p.chat({ messages, contextManagement: compaction });
    expect(r.content).toBe('ok');
    expect(server.requests[0].body.context_management).toEqual(compaction);
  });
});
