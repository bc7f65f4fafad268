// The local Bedrock runtime against the real clients: the AWS SDK (Converse, ConverseStream,
// CountTokens) and @ai-sdk/amazon-bedrock (generateText, streamText). A legal request succeeds,
// an illegal one gets Bedrock's ValidationException with its wording.
import { BedrockRuntimeClient, ConverseCommand, ConverseStreamCommand, CountTokensCommand, ValidationException } from '@aws-sdk/client-bedrock-runtime';
import type { Message } from '@aws-sdk/client-bedrock-runtime';
import { createAmazonBedrock } from '@ai-sdk/amazon-bedrock';
import { APICallError, generateText, streamText, jsonSchema, tool } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { wireSignature } from '../core/signatures.js';
import type { WireServer } from '../core/wire-server.js';
import { checkBedrockConverse, startBedrockServer } from './bedrock-server.js';

let server: WireServer;
let client: BedrockRuntimeClient;
const MODEL = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';

beforeAll(async () => {
  server = await startBedrockServer();
  client = new BedrockRuntimeClient({ region: 'us-east-1', endpoint: server.url, credentials: { accessKeyId: 'AKIDLOCAL', secretAccessKey: 'local-secret' }, maxAttempts: 1 });
});
afterAll(async () => {
  client.destroy();
  await server.stop();
});

const legal: Message[] = [
  { role: 'user', content: [{ text: 'What is the weather in Paris?' }] },
  { role: 'assistant', content: [{ reasoningContent: { reasoningText: { text: 'Look it up.', signature: wireSignature('bedrock-reasoning', 'Look it up.') } } }, { toolUse: { toolUseId: 'tooluse_1', name: 'weather', input: { city: 'Paris' } } }] },
  { role: 'user', content: [{ toolResult: { toolUseId: 'tooluse_1', content: [{ text: 'sunny' }] } }] },
];
const toolConfig = { tools: [{ toolSpec: { name: 'weather', inputSchema: { json: { type: 'object', properties: { city: { type: 'string' } } } } } }] };

describe('Bedrock Converse through @aws-sdk/client-bedrock-runtime', () => {
  it('answers a legal Converse request', async () => {
    server.enqueue({ reasoning: 'Sunny, say so.', text: 'It is sunny in Paris.' });
    const out = await client.send(new ConverseCommand({ modelId: MODEL, messages: legal, toolConfig }));
    expect(out.stopReason).toBe('end_turn');
    const blocks = out.output?.message?.content ?? [];
    expect(blocks.find((b) => b.text)?.text).toBe('It is sunny in Paris.');
    const reasoning = blocks.find((b) => b.reasoningContent)?.reasoningContent?.reasoningText;
    expect(reasoning?.signature).toBe(wireSignature('bedrock-reasoning', 'Sunny, say so.'));
    expect(server.requests.at(-1)?.violations).toEqual([]);
    expect(server.requests.at(-1)?.headers.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIDLOCAL\//);
  });

  it('streams a tool call through ConverseStream (AWS event-stream framing)', async () => {
    server.enqueue({ text: 'Checking.', toolCalls: [{ id: 'tooluse_2', name: 'weather', input: { city: 'Lyon' } }] });
    const out = await client.send(new ConverseStreamCommand({ modelId: MODEL, messages: legal, toolConfig }));
    const events: string[] = [];
    let text = '';
    let input = '';
    let stop: string | undefined;
    for await (const e of out.stream!) {
      events.push(Object.keys(e).find((k) => k !== '$unknown')!);
      text += e.contentBlockDelta?.delta?.text ?? '';
      input += e.contentBlockDelta?.delta?.toolUse?.input ?? '';
      if (e.contentBlockStart?.start?.toolUse) expect(e.contentBlockStart.start.toolUse).toEqual({ toolUseId: 'tooluse_2', name: 'weather' });
      stop = e.messageStop?.stopReason ?? stop;
    }
    expect(text).toBe('Checking.');
    expect(JSON.parse(input)).toEqual({ city: 'Lyon' });
    expect(stop).toBe('tool_use');
    expect(events[0]).toBe('messageStart');
    expect(events.at(-1)).toBe('metadata');
  });

  it('counts tokens (CountTokens)', async () => {
    const out = await client.send(new CountTokensCommand({ modelId: MODEL, input: { converse: { messages: legal.slice(0, 1) } } }));
    expect(out.inputTokens).toBeGreaterThan(0);
  });

  it.each([
    ['an assistant turn first', [{ role: 'assistant', content: [{ text: 'hi' }] }, ...legal], 'A conversation must start with a user message. Try again with a conversation that starts with a user message.'],
    ['two user turns in a row', [legal[0], { role: 'user', content: [{ text: 'and?' }] }], 'A conversation must alternate between user and assistant roles. Make sure the conversation alternates between user and assistant roles and try again.'],
    ['a blank text block', [{ role: 'user', content: [{ text: '  ' }] }], 'The text field in the ContentBlock object at messages.0.content.0 is blank. Add text to the text field, and try again.'],
    ['a toolUse without its toolResult', [...legal.slice(0, 2), { role: 'user', content: [{ text: 'never mind' }] }], 'Expected toolResult blocks at messages.2.content for the following Ids: tooluse_1'],
    ['a changed signed reasoning text', [legal[0], { role: 'assistant', content: [{ reasoningContent: { reasoningText: { text: 'Look it up!', signature: wireSignature('bedrock-reasoning', 'Look it up.') } } }, legal[1].content![1]] }, legal[2]], 'The model returned the following errors: messages.1.content.0: Invalid `signature` in `thinking` block'],
    ['unsigned reasoning sent back', [legal[0], { role: 'assistant', content: [{ reasoningContent: { reasoningText: { text: 'hmm' } } }, legal[1].content![1]] }, legal[2]], 'The model returned the following errors: messages.1.content.0.thinking.signature: Field required'],
    ['the last turn from the assistant', legal.slice(0, 1).concat([{ role: 'assistant', content: [{ text: 'Sure' }] }]), 'The model returned the following errors: This model does not support assistant message prefill. The conversation must end with a user message.'],
  ] as [string, Message[], string][])('rejects %s with Bedrock\'s ValidationException', async (_name, messages, wording) => {
    const error = await client.send(new ConverseCommand({ modelId: MODEL, messages, toolConfig })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationException);
    expect((error as ValidationException).message).toBe(wording);
    expect((error as ValidationException).$metadata.httpStatusCode).toBe(400);
  });

  it('rejects a request without credentials the way AWS does', async () => {
    const res = await fetch(`${server.url}/model/${encodeURIComponent(MODEL)}/converse`, { method: 'POST', body: JSON.stringify({ messages: legal }) });
    expect(res.status).toBe(403);
    expect(res.headers.get('x-amzn-errortype')).toMatch(/^MissingAuthenticationTokenException/);
  });
});

describe('Bedrock Converse through @ai-sdk/amazon-bedrock', () => {
  const model = () => createAmazonBedrock({ baseURL: server.url, region: 'us-east-1', accessKeyId: 'AKIDLOCAL', secretAccessKey: 'local-secret' })(MODEL);
  const tools = { weather: tool({ inputSchema: jsonSchema<{ city: string }>({ type: 'object', properties: { city: { type: 'string' } } }) }) };

  it('generates and streams text, reasoning signatures included', async () => {
    server.enqueue({ reasoning: 'think', text: 'Hello there.' });
    const out = await generateText({ model: model(), prompt: 'Hi', maxRetries: 0 });
    expect(out.text).toBe('Hello there.');
    expect(out.reasoning[0]?.providerMetadata?.bedrock?.signature).toBe(wireSignature('bedrock-reasoning', 'think'));
    server.enqueue({ text: 'Streamed reply.' });
    const stream = streamText({ model: model(), prompt: 'Hi', maxRetries: 0 });
    expect(await stream.text).toBe('Streamed reply.');
  });

  it('round-trips a tool call and its signed reasoning legally', async () => {
    server.enqueue({ reasoning: 'need weather', toolCalls: [{ name: 'weather', input: { city: 'Oslo' } }] }, { text: 'Cold.' });
    const first = await generateText({ model: model(), prompt: 'Weather in Oslo?', tools, maxRetries: 0 });
    const call = first.toolCalls[0]!;
    const out = await generateText({
      model: model(),
      tools,
      maxRetries: 0,
      messages: [{ role: 'user', content: 'Weather in Oslo?' }, ...first.response.messages, { role: 'tool', content: [{ type: 'tool-result', toolCallId: call.toolCallId, toolName: 'weather', output: { type: 'text', value: '-5C' } }] }],
    });
    expect(out.text).toBe('Cold.');
    expect(server.requests.at(-1)?.violations).toEqual([]);
  });

  it('surfaces Bedrock\'s error for an illegal history', async () => {
    const error = await generateText({ model: model(), maxRetries: 0, messages: [{ role: 'assistant', content: 'I start' }, { role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
    expect(APICallError.isInstance(error)).toBe(true);
    expect((error as APICallError).statusCode).toBe(400);
    expect((error as APICallError).message).toContain('A conversation must start with a user message.');
  });
});

describe('checkBedrockConverse', () => {
  it('reports every broken rule with its id, and nothing for a legal body', () => {
    expect(checkBedrockConverse({ messages: legal, toolConfig })).toEqual([]);
    const v = checkBedrockConverse({ messages: [{ role: 'assistant', content: [{ toolUse: { toolUseId: 'a', name: 'f', input: 'x' } }] }] });
    expect(v.map((x) => x.rule)).toEqual(['bedrock/first-message-user', 'bedrock/last-message-user', 'bedrock/tool-config-required', 'bedrock/tool-input-object', 'bedrock/tool-results-follow']);
  });
  it('never throws on malformed input', () => {
    for (const body of [{}, { messages: 'x' }, { messages: [null, 1, { role: 'user' }] }, { input: { converse: { messages: [{ role: 'user', content: [{ text: '' }] }] } } }]) {
      expect(() => checkBedrockConverse(body as never)).not.toThrow();
    }
  });
});
