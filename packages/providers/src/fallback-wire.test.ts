// Failover through the real SDKs against local servers: a failing primary costs one request and
// no wait, and the move is told as a notice; a single provider still honours Retry-After.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ProviderNotice } from '@nanobot/schema';
import { AnthropicProvider } from './anthropic-provider.js';
import { FallbackProvider } from './fallback-provider.js';
import { OpenAICompatProvider } from './openai-compat-provider.js';
import { drainStream } from './test-support/drain-stream.js';
import { WireServer, replyJson, replySse } from './test-support/wire-server.js';
import { completion, textStream } from './test-support/openai-wire.js';
import { message } from './test-support/anthropic-wire.js';

let primaryServer: WireServer;
let backupServer: WireServer;
let sleeps: number[];
const sleep = async (ms: number): Promise<void> => void sleeps.push(ms);

beforeEach(async () => {
  primaryServer = await new WireServer().start();
  backupServer = await new WireServer().start();
  sleeps = [];
});
afterEach(async () => {
  await primaryServer.stop();
  await backupServer.stop();
});

const req = { messages: [{ role: 'user', content: 'hi' }] };
const primary = () => new OpenAICompatProvider({ model: 'gpt-4o', apiKey: 'k', baseUrl: `${primaryServer.url}/v1`, retry: { sleep } });
const backup = () => new AnthropicProvider({ model: 'claude-sonnet-4-5', apiKey: 'k', baseUrl: backupServer.url, retry: { sleep } });

describe('FallbackProvider over the wire', () => {
  it('a 503 from the primary goes to the secondary after one request and no wait, with a fallback notice', async () => {
    primaryServer.enqueue(replyJson(503, { error: { message: 'Service Unavailable', type: 'server_error' } }));
    backupServer.enqueue(replyJson(200, message([{ type: 'text', text: 'from claude' }])));
    const notices: ProviderNotice[] = [];
    const res = await new FallbackProvider([primary(), backup()]).chat({ ...req, onNotice: (n) => notices.push(n) });
    expect(res).toMatchObject({ content: 'from claude', provider: 'anthropic' });
    expect(primaryServer.requests).toHaveLength(1);
    expect(sleeps).toEqual([]);
    expect(notices).toEqual([{ type: 'fallback', from: 'openai:gpt-4o', to: 'anthropic:claude-sonnet-4-5', reason: 'server (503)', status: 503 }]);
  });

  it('the same for a stream that fails before its first event', async () => {
    primaryServer.enqueue(replyJson(503, { error: { message: 'down' } }));
    backupServer.enqueue(replySse(textStream(['o', 'k'])));
    const chatBackup = new OpenAICompatProvider({ model: 'gpt-b', apiKey: 'k', baseUrl: `${backupServer.url}/v1`, retry: { sleep } });
    const notices: ProviderNotice[] = [];
    const { events, error } = await drainStream(new FallbackProvider([primary(), chatBackup]).stream({ ...req, onNotice: (n) => notices.push(n) }));
    expect(error).toBeUndefined();
    expect(events.at(-1)).toMatchObject({ type: 'done', response: { content: 'ok' } });
    expect(backupServer.requests[0].body.model).toBe('gpt-b');
    expect(primaryServer.requests).toHaveLength(1);
    expect(sleeps).toEqual([]);
    expect(notices.map((n) => n.type)).toEqual(['fallback']);
  });

  it('the last candidate keeps its own retries; attemptsPerCandidate widens the others', async () => {
    primaryServer.enqueue(replyJson(503, { error: { message: 'down' } }), replyJson(200, completion({ content: 'primary recovered' })));
    const res = await new FallbackProvider([primary(), backup()], { attemptsPerCandidate: 2 }).chat(req);
    expect(res.content).toBe('primary recovered');
    expect(sleeps).toEqual([1000]);
    expect(backupServer.requests).toHaveLength(0);
  });

  it('a single provider still waits out a 429 with retry-after: 2 (+1 s) and tells a retry notice', async () => {
    primaryServer.enqueue(replyJson(429, { error: { message: 'slow down', type: 'requests', code: 'rate_limit_exceeded' } }, { 'retry-after': '2' }), replyJson(200, completion({ content: 'ok' })));
    const notices: ProviderNotice[] = [];
    const res = await primary().chat({ ...req, onNotice: (n) => notices.push(n) });
    expect(res.content).toBe('ok');
    expect(sleeps).toEqual([3000]);
    expect(notices).toEqual([{ type: 'retry', provider: 'openai', attempt: 1, delayMs: 3000, reason: 'rate_limit (429)', status: 429 }]);
  });
});
