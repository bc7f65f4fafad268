import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { encodeEvent, encodeException, sendBedrockError, startBedrockServer, wireSignature } from '@nanobot-internal/provider-wire';
import type { WireServer } from '@nanobot-internal/provider-wire';
import type { LLMResponse, Message } from '@nanobot/schema';
import { collectStream } from '../collect-stream.js';
import { createProvider } from '../create-provider.js';
import { ProviderError } from '../provider-error.js';
import { BedrockProvider } from './bedrock-provider.js';

// Our Bedrock provider through the real @aws-sdk/client-bedrock-runtime (HTTP/2, SigV4 or bearer
// token, the binary event stream) against tooling/provider-wire's Bedrock stand-in, which answers
// a broken Converse rule with Bedrock's ValidationException.

const MODEL = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';
let server: WireServer;
beforeAll(async () => {
  server = await startBedrockServer();
});
afterAll(async () => {
  await server.stop();
});
afterEach(() => {
  server.requests.length = 0;
});

const tools = [{ type: 'function' as const, function: { name: 'weather', description: 'Weather of a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } }];
const user: Message = { role: 'user', content: 'Weather in Paris?' };

function bedrock(extra: Partial<ConstructorParameters<typeof BedrockProvider>[0]> = {}): BedrockProvider {
  return new BedrockProvider({ model: `bedrock/${MODEL}`, apiKey: 'bedrock-api-key', region: 'us-east-1', endpoint: server.url, ...extra });
}

/** The assistant message the runner stores for an answer. */
function stored(response: LLMResponse): Message {
  return {
    role: 'assistant',
    content: response.content,
    tool_calls: response.toolCalls.map((c) => ({ id: c.id, type: 'function' as const, function: { name: c.name, arguments: JSON.stringify(c.arguments) } })),
    reasoning_content: response.reasoningContent ?? null,
    thinking_blocks: response.thinkingBlocks ?? null,
  };
}

describe('Bedrock Converse', () => {
  for (const streamed of [false, true]) {
    it(`a tool call with signed reasoning, answered and sent back (${streamed ? 'ConverseStream' : 'Converse'})`, async () => {
      server.enqueue({ reasoning: 'Look it up.', toolCalls: [{ name: 'weather', input: { city: 'Paris' } }] }, { text: 'Sunny in Paris.' });
      const provider = bedrock();
      const ask = (messages: Message[]) => (streamed ? collectStream(provider.stream({ messages, tools, maxTokens: 512 })) : provider.chat({ messages, tools, maxTokens: 512 }));
      const first = await ask([{ role: 'system', content: 'Be brief.' }, user]);
      expect(first).toMatchObject({ finishReason: 'tool_calls', reasoningContent: 'Look it up.', provider: 'bedrock' });
      expect(first.toolCalls).toMatchObject([{ name: 'weather', arguments: { city: 'Paris' } }]);
      expect(first.thinkingBlocks).toEqual([{ type: 'thinking', thinking: 'Look it up.', signature: wireSignature('bedrock-reasoning', 'Look it up.'), producer: 'bedrock' }]);
      const second = await ask([{ role: 'system', content: 'Be brief.' }, user, stored(first), { role: 'tool', tool_call_id: first.toolCalls[0].id, content: 'sunny' }]);
      expect(second).toMatchObject({ content: 'Sunny in Paris.', finishReason: 'stop' });
      expect(second.usage.inputTokens).toBeGreaterThan(0);
      expect(server.requests.map((r) => [r.route, r.params.model, r.status, r.violations.length])).toEqual([
        [streamed ? 'converse-stream' : 'converse', MODEL, 200, 0],
        [streamed ? 'converse-stream' : 'converse', MODEL, 200, 0],
      ]);
      expect(server.requests[0].headers.authorization).toBe('Bearer bedrock-api-key');
      const body = server.requests[1].body as { messages: { content: Record<string, unknown>[] }[]; system: unknown };
      expect(body.system).toEqual([{ text: 'Be brief.' }]);
      expect(body.messages[1].content[0]).toEqual({ reasoningContent: { reasoningText: { text: 'Look it up.', signature: wireSignature('bedrock-reasoning', 'Look it up.') } } });
    });
  }

  it('the SDK credential chain signs with SigV4 when no API key is given', async () => {
    const provider = bedrock({ apiKey: undefined, clientConfig: { credentials: { accessKeyId: 'AKIDLOCAL', secretAccessKey: 'secret' } } });
    expect((await provider.chat({ messages: [user] })).content).toBe('ok');
    expect(server.requests[0].headers.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIDLOCAL\//);
  });

  it('createProvider: a Bedrock model id and AWS_BEARER_TOKEN_BEDROCK choose and configure it', async () => {
    const provider = await createProvider({ model: `anthropic.claude-sonnet-4-5-20250929-v1:0`, providers: { bedrock: { apiBase: server.url, region: 'us-west-2' } }, env: { AWS_BEARER_TOKEN_BEDROCK: 'from-env' } });
    expect(provider.name).toBe('bedrock');
    await provider.chat({ messages: [user] });
    expect(server.requests[0].headers.authorization).toBe('Bearer from-env');
    expect(server.requests[0].params.model).toBe('anthropic.claude-sonnet-4-5-20250929-v1:0');
  });

  it('an illegal request is refused with the ValidationException body, not retried', async () => {
    const provider = bedrock();
    const error = await provider.chat({ messages: [{ role: 'assistant', content: 'I start.' }] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ kind: 'bad_request', status: 400, retryable: false, apiType: 'ValidationException' });
    expect(server.requests).toHaveLength(1);
  });

  it('throttling is retried with our policy; an over-long prompt is context_length', async () => {
    server.enqueue((_req, res) => sendBedrockError(res, 429, 'ThrottlingException', 'Too many requests, please wait before trying again.'));
    const provider = bedrock({ retry: { maxAttempts: 2, delaysMs: [1] } });
    expect((await provider.chat({ messages: [user] })).content).toBe('ok');
    expect(server.requests.map((r) => r.status)).toEqual([429, 200]);
    server.enqueue((_req, res) => sendBedrockError(res, 400, 'ValidationException', 'Input is too long for requested model.'));
    await expect(bedrock({ retry: { maxAttempts: 1 } }).chat({ messages: [user] })).rejects.toMatchObject({ kind: 'context_length' });
  });

  it('an exception inside the event stream is classified (throttling retryable), a cut stream is stream_interrupted', async () => {
    server.enqueue((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/vnd.amazon.eventstream' });
      res.write(encodeEvent('messageStart', { role: 'assistant' }));
      res.end(encodeException('throttlingException', 'Too many tokens, please wait.'));
    });
    const error = await collectStream(bedrock({ retry: { maxAttempts: 1 } }).stream({ messages: [user] })).catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'rate_limit', retryable: true });
    server.enqueue((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/vnd.amazon.eventstream' });
      res.write(encodeEvent('messageStart', { role: 'assistant' }));
      res.end(encodeEvent('contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'partial' } }));
    });
    await expect(collectStream(bedrock({ retry: { maxAttempts: 1 } }).stream({ messages: [user] }))).rejects.toMatchObject({ kind: 'stream_interrupted' });
  });

  it('CountTokens counts the Converse form of the request', async () => {
    const count = await bedrock().countTokens({ messages: [{ role: 'system', content: 'Be brief.' }, user], tools });
    expect(count).toMatchObject({ provider: 'bedrock', model: `bedrock/${MODEL}` });
    expect(count.inputTokens).toBeGreaterThan(0);
    expect(server.requests[0]).toMatchObject({ route: 'count-tokens', status: 200, body: { input: { converse: { system: [{ text: 'Be brief.' }] } } } });
  });
});
