import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import type { LLMProvider, LLMRequest, LLMResponse, Message } from '@nanobot/schema';
import { estimatePromptTokens } from '@nanobot/schema';
import { Consolidator, JsonlSessionStore, MemoryStore, type Session } from './index.js';

/** A minimal LLMProvider: answers from a script of responses (or errors) and records requests. */
class FakeProvider implements LLMProvider {
  readonly name = 'fake';
  readonly defaultModel = 'fake-1';
  readonly requests: LLMRequest[] = [];
  constructor(private readonly script: (LLMResponse | Error)[]) {}
  async chat(request: LLMRequest): Promise<LLMResponse> {
    this.requests.push(request);
    const next = this.script.shift() ?? reply('- [durable] default');
    if (next instanceof Error) throw next;
    return next;
  }
  // eslint-disable-next-line require-yield
  async *stream(): AsyncIterable<never> {
    throw new Error('not used');
  }
}
const reply = (content: string | null, extra: Partial<LLMResponse> = {}): LLMResponse => ({
  content,
  toolCalls: [],
  finishReason: 'stop',
  usage: { inputTokens: 0, outputTokens: 0 },
  ...extra,
});

let ws: string;
let store: JsonlSessionStore;
let memory: MemoryStore;

beforeEach(() => {
  ws = mkdtempSync(join(tmpdir(), 'nb-cons-'));
  store = new JsonlSessionStore({ dir: join(ws, '..', `${ws.split('/').pop()}-sessions`), fsync: 'never' });
  memory = new MemoryStore({ workspace: ws });
});

async function longSession(turns: number): Promise<Session> {
  const { session } = await store.load('cli:direct');
  for (let i = 0; i < turns; i += 1) {
    session.addMessage('user', `question ${i} ${'lorem ipsum '.repeat(20)}`);
    session.addMessage('assistant', `answer ${i} ${'dolor sit amet '.repeat(20)}`);
  }
  await store.save(session);
  return session;
}

const make = (provider: LLMProvider, window: number, extra: Partial<ConstructorParameters<typeof Consolidator>[0]> = {}) =>
  new Consolidator({ provider, store, memory, contextWindowTokens: window, maxTokens: 500, ...extra });

describe('Consolidator', () => {
  it('stays idle below the budget', async () => {
    const session = await longSession(2);
    const provider = new FakeProvider([]);
    const report = await make(provider, 100_000).maybeConsolidateByTokens(session);
    expect(report.triggered).toBe(false);
    expect(provider.requests).toHaveLength(0);
    expect(session.lastConsolidated).toBe(0);
  });

  it('skips when the context window is not positive', async () => {
    const session = await longSession(30);
    const report = await make(new FakeProvider([]), 0).maybeConsolidateByTokens(session);
    expect(report.triggered).toBe(false);
  });

  it('summarises the oldest turns into history.jsonl, advances the pointer, stores the summary, and persists it', async () => {
    const session = await longSession(30);
    const provider = new FakeProvider([reply('- [durable] user asked 30 questions'), reply('(nothing)')]);
    const consolidator = make(provider, 4500);
    const before = await consolidator.estimateSessionPrompt(session);
    expect(before).toBeGreaterThanOrEqual(consolidator.inputBudget);
    const report = await consolidator.maybeConsolidateByTokens(session);
    expect(report.triggered).toBe(true);
    expect(report.rounds[0].outcome).toBe('summary');
    expect(session.lastConsolidated).toBeGreaterThan(0);
    expect(session.messages[session.lastConsolidated].role).toBe('user');
    expect(report.estimateAfter).toBeLessThan(before);
    const { entries } = await memory.readHistory();
    expect(entries[0]).toMatchObject({ cursor: 1, content: '- [durable] user asked 30 questions', session_key: 'cli:direct' });
    expect(session.metadata._last_summary).toEqual({ text: '- [durable] user asked 30 questions', last_active: session.updatedAt });
    const request = provider.requests[0];
    expect(request.toolChoice).toBe('none');
    const last = request.messages.at(-1)!;
    expect(last.role).toBe('user');
    expect(String(last.content)).toMatch(/final \d+ messages/);
    const reloaded = (await store.load('cli:direct')).session;
    expect(reloaded.lastConsolidated).toBe(session.lastConsolidated);
    expect(reloaded.metadata._last_summary).toEqual(session.metadata._last_summary);
  });

  it('falls back to a raw archive when the model fails, and still advances the pointer', async () => {
    for (const failure of [new Error('boom'), reply(null), reply('x', { finishReason: 'length' }), reply('x', { finishReason: 'error' }),
      reply('x', { toolCalls: [{ id: 'c', name: 'exec', arguments: {} }] })]) {
      ws = mkdtempSync(join(tmpdir(), 'nb-cons-'));
      store = new JsonlSessionStore({ dir: join(ws, '..', `${ws.split('/').pop()}-sessions`), fsync: 'never' });
      memory = new MemoryStore({ workspace: ws });
      const session = await longSession(30);
      const report = await make(new FakeProvider([failure]), 4500).maybeConsolidateByTokens(session);
      expect(report.rounds).toHaveLength(1);
      expect(report.rounds[0].outcome).toBe('raw');
      expect(session.lastConsolidated).toBe(report.rounds[0].end);
      const { entries } = await memory.readHistory();
      expect(entries).toHaveLength(1);
      expect(entries[0].content.startsWith('[RAW] ')).toBe(true);
      expect(session.metadata._last_summary).toBeUndefined();
    }
  });

  it('a request that would not fit the budget is raw-archived without calling the model', async () => {
    const session = await longSession(30);
    const provider = new FakeProvider([]);
    const report = await make(provider, 4000).maybeConsolidateByTokens(session);
    expect(provider.requests).toHaveLength(0);
    expect(report.rounds[0].outcome).toBe('raw');
    expect((await memory.readHistory()).entries[0].content.startsWith('[RAW] ')).toBe(true);
  });

  it('"(nothing)" writes no entry but keeps going', async () => {
    const session = await longSession(30);
    const provider = new FakeProvider([reply('(nothing)'), reply('(nothing)'), reply('(nothing)'), reply('(nothing)'), reply('(nothing)')]);
    const report = await make(provider, 4500).maybeConsolidateByTokens(session);
    expect(report.rounds.every((r) => r.outcome === 'nothing')).toBe(true);
    expect((await memory.readHistory()).entries).toHaveLength(0);
    expect(session.lastConsolidated).toBeGreaterThan(0);
    expect(session.metadata._last_summary).toBeUndefined();
  });

  it('uses the injected prompt builder (same system prompt as the main agent) and counts tools', async () => {
    const session = await longSession(30);
    const seen: string[] = [];
    const provider = new FakeProvider([reply('- [durable] x')]);
    const tools = [{ type: 'function' as const, function: { name: 'exec', description: 'run', parameters: { type: 'object', properties: {} } } }];
    const consolidator = make(provider, 4500, {
      tools,
      buildMessages: ({ history, currentMessage }) => {
        seen.push(currentMessage);
        return [{ role: 'system', content: 'SYSTEM' }, ...history, { role: 'user', content: currentMessage }] as Message[];
      },
    });
    await consolidator.maybeConsolidateByTokens(session);
    expect(seen[0]).toBe('[token-probe]');
    expect(provider.requests[0].messages[0]).toEqual({ role: 'system', content: 'SYSTEM' });
    expect(provider.requests[0].tools).toEqual(tools);
    const probe = [{ role: 'system', content: 'SYSTEM' }, ...session.getHistory(), { role: 'user', content: '[token-probe]' }] as Message[];
    expect(await consolidator.estimateSessionPrompt(session)).toBe(estimatePromptTokens(probe, tools));
  });

  it('archiveUnconsolidated archives everything after the pointer in one call', async () => {
    const session = await longSession(3);
    const provider = new FakeProvider([reply('- [ephemeral] chatted about lorem ipsum')]);
    const summary = await make(provider, 100_000).archiveUnconsolidated(session);
    expect(summary).toBe('- [ephemeral] chatted about lorem ipsum');
    expect(session.lastConsolidated).toBe(6);
    expect(String(provider.requests[0].messages.at(-1)!.content)).toContain('final 6 messages');
    expect((await store.load('cli:direct')).session.metadata._last_summary).toMatchObject({ text: summary });
    expect(await make(provider, 100_000).archiveUnconsolidated(session)).toBeNull();
  });

  it('builds probes and requests with a ContextBuilder (real system prompt) when given one', async () => {
    const { ContextBuilder } = await import('@nanobot/context-builder');
    const session = await longSession(60);
    const builder = new ContextBuilder({ workspace: ws, runtime: 'r', platform: 'posix' });
    const provider = new FakeProvider([reply('- [durable] y')]);
    const consolidator = make(provider, 9000, { contextBuilder: builder });
    const plain = make(provider, 9000);
    expect(await consolidator.estimateSessionPrompt(session)).toBeGreaterThan(await plain.estimateSessionPrompt(session));
    const report = await consolidator.maybeConsolidateByTokens(session);
    expect(report.rounds[0].outcome).toBe('summary');
    const system = provider.requests[0].messages[0];
    expect(system.role).toBe('system');
    expect(String(system.content)).toContain('# Tool Usage Notes');
    expect(String(system.content)).toContain('## Format Hint'); // channel "cli" from the key
  });

  it('pickBoundary returns the first user boundary covering the tokens to remove', async () => {
    const session = await longSession(5);
    const c = make(new FakeProvider([]), 4500);
    expect(c.pickBoundary(session, 1)).toBe(2);
    expect(c.pickBoundary(session, 10_000_000)).toBe(8);
    session.lastConsolidated = 8;
    expect(c.pickBoundary(session, 1)).toBeNull();
  });
});
