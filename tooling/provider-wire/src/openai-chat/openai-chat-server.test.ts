// The chat-completions stand-ins against the real clients: the official openai SDK and
// @ai-sdk/openai (chat) for OpenAI, @ai-sdk/mistral for Mistral, @ai-sdk/deepseek for DeepSeek,
// the openai SDK for OpenRouter and Gemini's OpenAI-compatible endpoint. For each: a legal
// request succeeds (whole and streamed), an illegal one gets the vendor's real error.
import { createDeepSeek } from '@ai-sdk/deepseek';
import { createMistral } from '@ai-sdk/mistral';
import { createOpenAI } from '@ai-sdk/openai';
import { APICallError, generateText, jsonSchema, streamText, tool } from 'ai';
import type { ModelMessage } from 'ai';
import OpenAI, { APIError } from 'openai';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { geminiCallSignature, GEMINI_SIGNATURE_PLACEHOLDERS } from '../core/gemini-signature.js';
import type { WireServer } from '../core/wire-server.js';
import type { ChatVendor } from './check-openai-chat.js';
import { checkOpenAIChat } from './check-openai-chat.js';
import { startOpenAIChatServer } from './openai-chat-server.js';

const servers: WireServer[] = [];
async function serve(vendor: ChatVendor): Promise<WireServer> {
  const s = await startOpenAIChatServer({ vendor });
  servers.push(s);
  return s;
}
afterAll(async () => {
  for (const s of servers) await s.stop();
});
afterEach(() => {
  for (const s of servers) expect(s.pending, `${s.provider}: queued replies left over`).toBe(0);
});

const tools = { lookup: tool({ inputSchema: jsonSchema<{ q: string }>({ type: 'object', properties: { q: { type: 'string' } } }) }) };
const result = (toolCallId: string, value = 'found'): ModelMessage => ({ role: 'tool', content: [{ type: 'tool-result', toolCallId, toolName: 'lookup', output: { type: 'text', value } }] });

describe('OpenAI chat', () => {
  it('serves the openai SDK, whole and streamed, and rejects an orphan tool message', async () => {
    const server = await serve('openai');
    const client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: 'sk-local', maxRetries: 0 });
    server.enqueue({ text: 'Hi there.' });
    expect((await client.chat.completions.create({ model: 'gpt-4.1', messages: [{ role: 'user', content: 'Hi' }] })).choices[0]?.message.content).toBe('Hi there.');
    server.enqueue({ text: 'Streamed.' });
    let text = '';
    for await (const c of await client.chat.completions.create({ model: 'gpt-4.1', stream: true, messages: [{ role: 'user', content: 'Hi' }] })) text += c.choices[0]?.delta.content ?? '';
    expect(text).toBe('Streamed.');
    const error = await client.chat.completions.create({ model: 'gpt-4.1', messages: [{ role: 'user', content: 'Hi' }, { role: 'tool', tool_call_id: 'call_x', content: 'r' }] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(APIError);
    expect((error as APIError).status).toBe(400);
    expect((error as APIError).message).toContain("Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.");
  });

  it('serves @ai-sdk/openai chat: a tool round trip, streamed text, and the error for an unanswered call', async () => {
    const server = await serve('openai');
    const model = createOpenAI({ baseURL: `${server.url}/v1`, apiKey: 'sk-local' }).chat('gpt-4.1');
    server.enqueue({ toolCalls: [{ name: 'lookup', input: { q: 'a' } }] }, { text: 'Done.' });
    const first = await generateText({ model, tools, prompt: 'Look up a', maxRetries: 0 });
    const call = first.toolCalls[0]!;
    const out = await generateText({ model, tools, maxRetries: 0, messages: [{ role: 'user', content: 'Look up a' }, ...first.response.messages, result(call.toolCallId)] });
    expect(out.text).toBe('Done.');
    server.enqueue({ text: 'Streamed chat.' });
    expect(await streamText({ model, prompt: 'Hi', maxRetries: 0 }).text).toBe('Streamed chat.');
    // (The AI SDK itself refuses an unanswered call; a result without its call reaches the wire.)
    const error = await generateText({ model, tools, maxRetries: 0, messages: [{ role: 'user', content: 'Look up a' }, result('call_gone')] }).catch((e: unknown) => e);
    expect(APICallError.isInstance(error)).toBe(true);
    expect((error as APICallError).statusCode).toBe(400);
    expect((error as APICallError).message).toContain("messages with role 'tool' must be a response to a preceeding message with 'tool_calls'");
  });
});

describe('Mistral', () => {
  it('serves @ai-sdk/mistral: its 9-character ids round-trip, streamed too', async () => {
    const server = await serve('mistral');
    const model = createMistral({ baseURL: `${server.url}/v1`, apiKey: 'local' })('mistral-large-latest');
    server.enqueue({ toolCalls: [{ name: 'lookup', input: { q: 'a' } }] }, { text: 'Done.' });
    const first = await generateText({ model, tools, prompt: 'Look up a', maxRetries: 0 });
    const call = first.toolCalls[0]!;
    expect(call.toolCallId).toMatch(/^[a-zA-Z0-9]{9}$/);
    expect((await generateText({ model, tools, maxRetries: 0, messages: [{ role: 'user', content: 'Look up a' }, ...first.response.messages, result(call.toolCallId)] })).text).toBe('Done.');
    server.enqueue({ text: 'Streamed.' });
    expect(await streamText({ model, prompt: 'Hi', maxRetries: 0 }).text).toBe('Streamed.');
  });

  it.each([
    ['an Anthropic tool-call id', [{ role: 'user', content: 'x' }, { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'toolu_01', toolName: 'lookup', input: { q: 'a' } }] }, result('toolu_01')], 'Tool call id was toolu_01 but must be a-z, A-Z, 0-9, with a length of 9.'],
    ['a user message right after a tool result', [{ role: 'user', content: 'x' }, { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'abcDEF123', toolName: 'lookup', input: { q: 'a' } }] }, result('abcDEF123'), { role: 'user', content: 'and?' }], "Unexpected role 'user' after role 'tool'"],
    ['a system message right after a tool result', [{ role: 'user', content: 'x' }, { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'abcDEF123', toolName: 'lookup', input: { q: 'a' } }] }, result('abcDEF123'), { role: 'system', content: 'note' }], "Unexpected role 'system' after role 'tool'"],
  ] as [string, ModelMessage[], string][])('rejects %s with Mistral\'s error', async (_name, messages, wording) => {
    const server = await serve('mistral');
    const model = createMistral({ baseURL: `${server.url}/v1`, apiKey: 'local' })('mistral-large-latest');
    const error = await generateText({ model, tools, messages, maxRetries: 0 }).catch((e: unknown) => e);
    expect(APICallError.isInstance(error)).toBe(true);
    expect((error as APICallError).statusCode).toBe(400);
    expect(JSON.parse((error as APICallError).responseBody!)).toMatchObject({ object: 'error', message: wording });
  });
});

describe('Mistral rules on bodies', () => {
  it('wants the last message from the user or a tool, or a prefixed assistant message (which @ai-sdk/mistral sends)', () => {
    const messages = [{ role: 'user', content: 'x' }, { role: 'assistant', content: 'Sure' }];
    expect(checkOpenAIChat({ model: 'mistral-large-latest', messages }, { vendor: 'mistral' }).map((v) => v.message)).toEqual(['Expected last role User or Tool (or Assistant with prefix True) for serving but got assistant']);
    expect(checkOpenAIChat({ model: 'mistral-large-latest', messages: [messages[0], { ...messages[1], prefix: true }] }, { vendor: 'mistral' })).toEqual([]);
  });

  it('takes the thinking chunks of Mistral\'s reasoning models, which OpenAI refuses', () => {
    const messages = [{ role: 'user', content: 'x' }, { role: 'assistant', content: [{ type: 'thinking', thinking: [{ type: 'text', text: 'hm' }] }, { type: 'text', text: 'ok' }] }, { role: 'user', content: 'y' }];
    expect(checkOpenAIChat({ model: 'magistral-medium-latest', messages }, { vendor: 'mistral' })).toEqual([]);
    expect(checkOpenAIChat({ model: 'gpt-4.1', messages }).map((v) => v.message)).toEqual(["Invalid value: 'thinking'. Supported values are: 'text' and 'refusal'."]);
  });
});

describe('DeepSeek', () => {
  it('serves @ai-sdk/deepseek: deepseek-reasoner keeps reasoning_content through a tool loop, streamed too', async () => {
    const server = await serve('deepseek');
    const model = createDeepSeek({ baseURL: server.url, apiKey: 'local' })('deepseek-reasoner');
    server.enqueue({ reasoning: 'need a lookup', toolCalls: [{ name: 'lookup', input: { q: 'a' } }] }, { reasoning: 'got it', text: 'Done.' });
    const first = await generateText({ model, tools, prompt: 'Look up a', maxRetries: 0 });
    expect(first.reasoningText).toBe('need a lookup');
    const call = first.toolCalls[0]!;
    expect((await generateText({ model, tools, maxRetries: 0, messages: [{ role: 'user', content: 'Look up a' }, ...first.response.messages, result(call.toolCallId)] })).text).toBe('Done.');
    expect((server.requests.at(-1)!.body as { messages: { reasoning_content?: string }[] }).messages[1]?.reasoning_content).toBe('need a lookup');
    server.enqueue({ reasoning: 'r', text: 'Streamed.' });
    expect(await streamText({ model, prompt: 'Hi', maxRetries: 0 }).text).toBe('Streamed.');
  });

  it('rejects a current tool loop sent to deepseek-reasoner without its reasoning_content', async () => {
    const server = await serve('deepseek');
    const model = createDeepSeek({ baseURL: server.url, apiKey: 'local' })('deepseek-reasoner');
    const error = await generateText({ model, tools, maxRetries: 0, messages: [{ role: 'user', content: 'x' }, { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'call_1', toolName: 'lookup', input: { q: 'a' } }] }, result('call_1')] }).catch((e: unknown) => e);
    expect((error as APICallError).statusCode).toBe(400);
    expect(JSON.parse((error as APICallError).responseBody!).error.message).toBe('Missing `reasoning_content` field in the assistant message at message index 1. For more information, please refer to https://api-docs.deepseek.com/guides/thinking_mode#tool-calls');
  });

  it('applies the V4 rule to every tool-calling turn, and nothing without thinking mode', () => {
    const messages = [{ role: 'user', content: 'x' }, { role: 'assistant', content: null, tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{}' } }] }, { role: 'tool', tool_call_id: 'c', content: 'r' }, { role: 'user', content: 'y' }];
    expect(checkOpenAIChat({ model: 'deepseek-v4-pro', messages }, { vendor: 'deepseek' }).map((v) => v.message)).toEqual(['The `reasoning_content` in the thinking mode must be passed back to the API.']);
    expect(checkOpenAIChat({ model: 'deepseek-reasoner', messages }, { vendor: 'deepseek' })).toEqual([]);
    expect(checkOpenAIChat({ model: 'deepseek-v4-pro', thinking: { type: 'disabled' }, messages }, { vendor: 'deepseek' })).toEqual([]);
    expect(checkOpenAIChat({ model: 'deepseek-chat', messages }, { vendor: 'deepseek' })).toEqual([]);
  });
});

describe('OpenRouter', () => {
  it('serves the openai SDK and keeps Gemini 3 reasoning_details legal when sent back unmodified', async () => {
    const server = await serve('openrouter');
    const client = new OpenAI({ baseURL: `${server.url}/api/v1`, apiKey: 'sk-or-local', maxRetries: 0 });
    server.enqueue({ reasoning: 'thinking', toolCalls: [{ name: 'lookup', input: { q: 'a' } }] }, { text: 'Done.' });
    const first = (await client.chat.completions.create({ model: 'google/gemini-3-pro-preview', messages: [{ role: 'user', content: 'Look up a' }] })).choices[0]!.message as unknown as Record<string, unknown>;
    expect(first.reasoning_details).toBeDefined();
    const call = (first.tool_calls as { id: string }[])[0]!;
    const messages = [{ role: 'user', content: 'Look up a' }, first, { role: 'tool', tool_call_id: call.id, content: 'found' }] as unknown as OpenAI.ChatCompletionMessageParam[];
    expect((await client.chat.completions.create({ model: 'google/gemini-3-pro-preview', messages })).choices[0]?.message.content).toBe('Done.');
    server.enqueue({ text: 'Streamed.' });
    let text = '';
    for await (const c of await client.chat.completions.create({ model: 'google/gemini-3-pro-preview', stream: true, messages: [{ role: 'user', content: 'Hi' }] })) text += c.choices[0]?.delta.content ?? '';
    expect(text).toBe('Streamed.');
    const stripped = messages.map((m) => ({ ...m, reasoning_details: undefined }));
    const error = await client.chat.completions.create({ model: 'google/gemini-3-pro-preview', messages: stripped as OpenAI.ChatCompletionMessageParam[] }).catch((e: unknown) => e);
    expect((error as APIError).status).toBe(400);
    const body = (error as APIError).error as { message: string; metadata: { raw: string; provider_name: string } };
    expect(body.message).toBe('Provider returned error');
    expect(JSON.parse(body.metadata.raw).error.message).toMatch(/^Function call is missing a thought_signature in functionCall parts\./);
  });

  it('lists models with their context length, as OpenRouter publishes them', async () => {
    const server = await serve('openrouter');
    const res = await fetch(`${server.url}/api/v1/models`);
    const body = (await res.json()) as { data: { id: string; context_length: number; top_provider: { max_completion_tokens: number } }[] };
    expect(body.data.find((m) => m.id === 'google/gemini-3-pro-preview')).toMatchObject({ context_length: 1_048_576, top_provider: { max_completion_tokens: 65_536 } });
  });

  it('rejects changed reasoning details and a Claude tool loop without its thinking', () => {
    const call = { id: 'call_1', type: 'function', function: { name: 'f', arguments: '{}' } };
    const assistant = { role: 'assistant', content: null, tool_calls: [call], reasoning_details: [{ type: 'reasoning.text', text: 'changed', signature: 'forged', format: 'anthropic-claude-v1', index: 0 }] };
    const body = { model: 'anthropic/claude-sonnet-4.5', reasoning: { max_tokens: 1024 }, messages: [{ role: 'user', content: 'x' }, assistant, { role: 'tool', tool_call_id: 'call_1', content: 'r' }] };
    expect(checkOpenAIChat(body, { vendor: 'openrouter' }).map((v) => v.rule)).toEqual(['openrouter/reasoning-details-unmodified']);
    expect(checkOpenAIChat({ ...body, messages: [body.messages[0], { ...assistant, reasoning_details: undefined }, body.messages[2]] }, { vendor: 'openrouter' }).map((v) => v.rule)).toEqual(['openrouter/claude-thinking-first']);
  });
});

describe('Gemini OpenAI-compatible endpoint', () => {
  it('serves the openai SDK with thought signatures on tool calls, and answers a missing one with Google\'s error', async () => {
    const server = await serve('gemini-openai');
    const client = new OpenAI({ baseURL: `${server.url}/v1beta/openai`, apiKey: 'gemini-key', maxRetries: 0 });
    server.enqueue({ toolCalls: [{ name: 'lookup', input: { q: 'a' } }] }, { text: 'Done.' });
    const first = (await client.chat.completions.create({ model: 'gemini-3-pro-preview', messages: [{ role: 'user', content: 'Look up a' }] })).choices[0]!.message;
    const call = first.tool_calls![0] as unknown as { id: string; extra_content: { google: { thought_signature: string } } };
    expect(call.extra_content.google.thought_signature).toBe(geminiCallSignature('lookup', { q: 'a' }));
    const messages = [{ role: 'user', content: 'Look up a' }, first, { role: 'tool', tool_call_id: call.id, content: 'found' }] as OpenAI.ChatCompletionMessageParam[];
    expect((await client.chat.completions.create({ model: 'gemini-3-pro-preview', messages })).choices[0]?.message.content).toBe('Done.');
    const unsigned = { ...first, tool_calls: first.tool_calls!.map((c) => ({ ...c, extra_content: undefined })) };
    const error = await client.chat.completions.create({ model: 'gemini-3-pro-preview', messages: [messages[0]!, unsigned as OpenAI.ChatCompletionMessageParam, messages[2]!] }).catch((e: unknown) => e);
    expect((error as APIError).status).toBe(400);
    // Google answers this endpoint's errors as a JSON list, which the openai SDK cannot read a message from.
    expect(server.requests.at(-1)!.violations[0]?.message).toMatch(/^Function call is missing a thought_signature in functionCall parts\./);
    const raw = await fetch(`${server.url}/v1beta/openai/chat/completions`, { method: 'POST', headers: { authorization: 'Bearer k', 'content-type': 'application/json' }, body: JSON.stringify({ model: 'gemini-3-pro-preview', messages: [messages[0], unsigned, messages[2]] }) });
    expect(await raw.json()).toEqual([{ error: { code: 400, message: server.requests.at(-1)!.violations[0]!.message, status: 'INVALID_ARGUMENT' } }]);
    server.enqueue({ text: 'Streamed.', toolCalls: [{ name: 'lookup', input: { q: 'b' } }] });
    let streamed = '';
    let signature: unknown;
    for await (const c of await client.chat.completions.create({ model: 'gemini-3-pro-preview', stream: true, messages: [{ role: 'user', content: 'Hi' }] })) {
      streamed += c.choices[0]?.delta.content ?? '';
      signature ??= (c.choices[0]?.delta.tool_calls?.[0] as { extra_content?: { google?: { thought_signature?: string } } } | undefined)?.extra_content?.google?.thought_signature;
    }
    expect(streamed).toBe('Streamed.');
    expect(signature).toBe(geminiCallSignature('lookup', { q: 'b' }));
    const placeholder = { ...first, tool_calls: first.tool_calls!.map((c) => ({ ...c, extra_content: { google: { thought_signature: GEMINI_SIGNATURE_PLACEHOLDERS[1] } } })) };
    server.enqueue({ text: 'Accepted.' });
    expect((await client.chat.completions.create({ model: 'gemini-3-pro-preview', messages: [messages[0]!, placeholder as OpenAI.ChatCompletionMessageParam, messages[2]!] })).choices[0]?.message.content).toBe('Accepted.');
  });
});
