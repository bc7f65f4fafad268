// The runner sized by the model's facts: a real AnthropicProvider asks a local 127.0.0.1 server
// for /v1/models/{id} through @anthropic-ai/sdk, ModelFactsCache keeps the answer in a real file
// beside the sessions, and every failure (timeout, 404, malformed JSON, an unreadable file) lets
// the turn run on the fallback and says so in a `model_facts` event.
import { mkdtemp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { GovernReport } from '@nanobot/governor';
import { ModelFactsCache, REPLY_RESERVE_CAP, replyReserveFor } from '@nanobot/providers';
import { AnthropicProvider } from '@nanobot/providers/anthropic';
import { ScriptedProvider } from '@nanobot/providers/testing';
import { ToolRegistry } from '@nanobot/registry';
import type { LLMProvider, Message } from '@nanobot/schema';
import { AgentRunner } from '../agent-runner.js';
import type { AgentRunSpec } from '../agent-runner.js';
import { createAgent } from '../create-agent.js';
import type { RunnerEvent } from '../runner-events.js';
import { JsonModelFactsStore, defaultModelFactsFile } from './json-model-facts-store.js';

type FactsEvent = Extract<RunnerEvent, { type: 'model_facts' }>;
type Governance = Extract<RunnerEvent, { type: 'governance' }>;

let server: Server;
let url: string;
/** How the local Anthropic models endpoint answers the next request. */
let answer: (res: ServerResponse, model: string) => void;
const seen: string[] = [];
let dir: string;

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json', 'request-id': 'req_local' });
  res.end(JSON.stringify(body));
}

const published = (window: number, output: number) => (res: ServerResponse, model: string) =>
  json(res, 200, { type: 'model', id: model, display_name: model, created_at: '2026-01-01T00:00:00Z', max_input_tokens: window, max_tokens: output });

beforeEach(async () => {
  seen.length = 0;
  answer = published(8000, 2000);
  server = createServer((req, res) => {
    seen.push(req.url ?? '');
    const match = /^\/v1\/models\/([^/?]+)/.exec(req.url ?? '');
    if (req.method !== 'GET' || !match || (typeof req.headers['x-api-key'] !== 'string' && typeof req.headers.authorization !== 'string')) return json(res, 404, { type: 'error', error: { type: 'not_found_error', message: 'not found' } });
    answer(res, decodeURIComponent(match[1]));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  dir = await mkdtemp(join(tmpdir(), 'nanobot-facts-'));
});

afterEach(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await rm(dir, { recursive: true, force: true });
});

/** A scripted chat model whose limits come from a real AnthropicProvider (the local server). */
function model(name = 'claude-haiku-4-5'): LLMProvider {
  const limits = new AnthropicProvider({ model: name, apiKey: 'sk-ant-test', baseUrl: url });
  const chat = new ScriptedProvider(() => ({ content: 'done', usage: { inputTokens: 10, outputTokens: 1 } }), { model: name });
  return Object.assign(chat, { modelLimits: limits.modelLimits });
}

function history(): Message[] {
  const out: Message[] = [{ role: 'system', content: 'You are a test agent.' }];
  for (let i = 0; i < 40; i++) {
    out.push({ role: 'user', content: `question ${i}: ${'lorem ipsum dolor sit amet '.repeat(20)}` });
    out.push({ role: 'assistant', content: `answer ${i}: ${'consectetur adipiscing elit '.repeat(20)}` });
  }
  out.push({ role: 'user', content: 'go on' });
  return out;
}

async function run(provider: LLMProvider, extra: Partial<AgentRunSpec>): Promise<{ events: RunnerEvent[]; result: Awaited<ReturnType<AgentRunner['run']>> }> {
  const events: RunnerEvent[] = [];
  const result = await new AgentRunner().run({ initialMessages: history(), provider, tools: new ToolRegistry(), stream: false, events: (e) => void events.push(e), ...extra });
  return { events, result };
}

const factsOf = (events: RunnerEvent[]) => events.filter((e): e is FactsEvent => e.type === 'model_facts');
const budgetOf = (events: RunnerEvent[]) => (events.find((e): e is Governance => e.type === 'governance')!.report as GovernReport).budget;

describe('a run sized by the model facts', () => {
  it("governs with the provider's published window and reply, keeps them in the file beside the sessions, and the next process reads the file", async () => {
    const file = defaultModelFactsFile(join(dir, 'sessions'));
    const facts = new ModelFactsCache({ provider: model(), store: new JsonModelFactsStore(file), scope: url });
    const { events, result } = await run(model(), { modelFacts: facts });
    expect(result.error).toBeNull();
    expect(factsOf(events)).toEqual([expect.objectContaining({ type: 'model_facts', model: 'claude-haiku-4-5', source: 'provider', contextWindow: 8000, maxOutput: 2000, windowTokens: 8000, replyTokens: 2000 })]);
    expect(factsOf(events)[0].problem).toBeUndefined();

    // Exactly the budget of a run told the same window and reply.
    const explicit = await run(model(), { contextWindowTokens: 8000, maxTokens: 2000 });
    expect(budgetOf(events)).toBe(budgetOf(explicit.events));
    expect(factsOf(explicit.events)).toEqual([]);

    const stored = JSON.parse(await readFile(file, 'utf8')) as { version: number; models: Record<string, { contextWindow: number; maxOutput: number; fetchedAt: number }> };
    expect(stored.version).toBe(1);
    expect(Object.values(stored.models)).toEqual([{ contextWindow: 8000, maxOutput: 2000, fetchedAt: expect.any(Number) }]);

    const nextProcess = new ModelFactsCache({ provider: model(), store: new JsonModelFactsStore(file), scope: url });
    const again = await run(model(), { modelFacts: nextProcess });
    expect(factsOf(again.events)[0]).toMatchObject({ source: 'cache', windowTokens: 8000, replyTokens: 2000 });
    expect(seen).toEqual(['/v1/models/claude-haiku-4-5']);
  });

  it('a reply reserve of at most 16 384 tokens or a quarter of the window; an explicit maxTokens wins', async () => {
    expect(replyReserveFor(1_000_000, 128_000)).toBe(REPLY_RESERVE_CAP);
    expect(replyReserveFor(8000, 4000)).toBe(2000);
    expect(replyReserveFor(200_000, undefined)).toBe(REPLY_RESERVE_CAP);
    answer = published(1_000_000, 128_000);
    const { events } = await run(model('claude-opus-4-7'), { modelFacts: new ModelFactsCache({ provider: model('claude-opus-4-7') }), maxTokens: 3000 });
    expect(factsOf(events)[0]).toMatchObject({ windowTokens: 1_000_000, replyTokens: 3000 });
  });

  it.each([
    ['a 404', (res: ServerResponse) => json(res, 404, { type: 'error', error: { type: 'not_found_error', message: 'model: claude-haiku-4-5' } }), /404/],
    ['malformed JSON', (res: ServerResponse) => { res.writeHead(200, { 'content-type': 'application/json' }); res.end('{"max_input_tokens": 8'); }, /models endpoint failed/],
    ['a timeout', () => undefined, /no answer within 300 ms/],
  ])('%s: the turn runs on the model table and the event says why', async (_name, reply, why) => {
    answer = reply;
    const facts = new ModelFactsCache({ provider: model(), store: new JsonModelFactsStore(join(dir, 'model-facts.json')), timeoutMs: 300 });
    const { events, result } = await run(model(), { modelFacts: facts });
    expect(result.error).toBeNull();
    expect(result.finalContent).toBe('done');
    const [event] = factsOf(events);
    expect(event).toMatchObject({ source: 'table', contextWindow: 200_000, windowTokens: 200_000, replyTokens: REPLY_RESERVE_CAP });
    expect(event.problem).toMatch(why);
    expect(event.problem).toContain('the built-in model table serves');
  });

  it('an unreadable facts file is reported and the endpoint serves; the turn runs', async () => {
    const file = join(dir, 'model-facts.json');
    await mkdir(file); // a directory where the file should be: read fails with EISDIR
    const facts = new ModelFactsCache({ provider: model(), store: new JsonModelFactsStore(file) });
    const { events, result } = await run(model(), { modelFacts: facts });
    expect(result.error).toBeNull();
    const [event] = factsOf(events);
    expect(event).toMatchObject({ source: 'provider', windowTokens: 8000 });
    expect(event.problem).toMatch(/cannot read the model facts file: .*EISDIR.*; cannot write the model facts file/);
  });

  it('a file that is not JSON is reported, then replaced by the fresh answer', async () => {
    const file = join(dir, 'model-facts.json');
    await writeFile(file, '{ "models": ');
    const { events } = await run(model(), { modelFacts: new ModelFactsCache({ provider: model(), store: new JsonModelFactsStore(file) }) });
    expect(factsOf(events)[0].problem).toMatch(/cannot read the model facts file: .*is not JSON/);
    expect(Object.keys((JSON.parse(await readFile(file, 'utf8')) as { models: object }).models)).toHaveLength(1);
  });

  it('a facts source that breaks its contract (rejects) does not fail the turn', async () => {
    const { events, result } = await run(model(), { modelFacts: { lookup: () => Promise.reject(new Error('boom')) } });
    expect(result.error).toBeNull();
    expect(factsOf(events)[0]).toMatchObject({ source: 'none', problem: 'the model facts lookup failed: boom' });
  });

  it('an explicit window means no lookup at all', async () => {
    const { events } = await run(model(), { modelFacts: new ModelFactsCache({ provider: model() }), contextWindowTokens: 16_000 });
    expect(factsOf(events)).toEqual([]);
    expect(seen).toEqual([]);
  });

  it('createAgent passes the facts to every turn', async () => {
    const workspace = await mkdtemp(join(tmpdir(), 'nanobot-facts-ws-'));
    try {
      const events: RunnerEvent[] = [];
      const agent = createAgent({ workspace, provider: model(), sessionsDir: join(dir, 'sessions'), modelFacts: new ModelFactsCache({ provider: model() }), events: (e) => void events.push(e), exec: false, cron: false });
      try {
        const outcome = await agent.ask('hello');
        expect(outcome.result?.finalContent).toBe('done');
      } finally {
        await agent.stop();
      }
      expect(factsOf(events)[0]).toMatchObject({ source: 'provider', windowTokens: 8000, replyTokens: 2000 });
    } finally {
      await rm(workspace, { recursive: true, force: true });
    }
  });
});
