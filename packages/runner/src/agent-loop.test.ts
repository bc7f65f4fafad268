import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { LLMProvider, LLMRequest, LLMResponse, LLMStreamEvent, Message } from '@nanobot/schema';
import { JsonlSessionStore, Session, type SessionStore } from '@nanobot/session';
import { ToolRegistry } from '@nanobot/registry';
import { defineTool } from '@nanobot/tools-core';
import { createMessageTool, createSpawnTool } from '@nanobot/tools';
import { AgentLoop, repairTail } from './agent-loop.js';
import { MessageBus } from './bus/index.js';
import { ScriptedProvider } from '@nanobot/providers/testing';
import type { OutboundMessage } from './bus/index.js';
import { SubagentManager } from './subagent-manager.js';
import { call, scripted, textStep, toolsStep } from './test-support/fake-model.js';
import { legalityProblems } from './test-support/legality.js';
import { simpleGovern } from './test-support/simple-govern.js';
import { TURN_INTERRUPTED_NOTE } from '@nanobot/schema';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempStore(): JsonlSessionStore {
  const dir = mkdtempSync(join(tmpdir(), 'runner-loop-'));
  dirs.push(dir);
  return new JsonlSessionStore({ dir, fsync: 'never' });
}

async function nextOutbound(bus: MessageBus): Promise<OutboundMessage> {
  return bus.consumeOutbound();
}

/**
 * Tools with one, `hang`, that runs until aborted and, once running, sends `/status` then
 * `/stop` to chat `c` of `ref.loop` (after `before`, if given).
 */
function statusThenStopTools(ref: { loop: AgentLoop }, before?: () => void): ToolRegistry {
  const tools = new ToolRegistry();
  tools.register(
    defineTool({
      name: 'hang',
      description: 'h',
      parameters: { type: 'object', properties: {} },
      execute: (_a, ctx) =>
        new Promise((resolve) => {
          ctx.signal.addEventListener('abort', () => resolve('late'));
          queueMicrotask(() => {
            before?.();
            ref.loop.dispatch({ channel: 'cli', senderId: 'me', chatId: 'c', content: '/status' });
            ref.loop.dispatch({ channel: 'cli', senderId: 'me', chatId: 'c', content: '/stop' });
          });
        }),
    }),
  );
  return tools;
}

describe('AgentLoop turns', () => {
  it('runs a user turn end to end and persists user + answer', async () => {
    const bus = new MessageBus();
    const sessions = tempStore();
    const model = scripted([textStep('Hello!')]);
    const loop = new AgentLoop({ bus, provider: model, tools: new ToolRegistry(), govern: simpleGovern, sessions, systemPrompt: 'sys' });
    loop.start();
    bus.publishInbound({ channel: 'cli', senderId: 'me', chatId: 'c1', content: 'hi' });
    const out = await nextOutbound(bus);
    expect(out).toMatchObject({ channel: 'cli', chatId: 'c1', content: 'Hello!' });
    await loop.stop();
    const { session } = await sessions.load('cli:c1');
    expect(session.messages.map((m) => [m.role, m.content])).toEqual([['user', 'hi'], ['assistant', 'Hello!']]);
    expect(model.requests[0].messages.map((m) => m.role)).toEqual(['system', 'user']);
  });

  it('replays history on the next turn', async () => {
    const bus = new MessageBus();
    const sessions = tempStore();
    const model = scripted([textStep('one'), textStep('two')]);
    const loop = new AgentLoop({ bus, provider: model, tools: new ToolRegistry(), govern: simpleGovern, sessions });
    loop.dispatch({ channel: 'cli', senderId: 'me', chatId: 'c', content: 'first' });
    loop.dispatch({ channel: 'cli', senderId: 'me', chatId: 'c', content: 'second' });
    await loop.idle();
    expect(bus.drainOutbound().map((m) => m.content)).toEqual(['one', 'two']);
    expect(model.requests[1].messages.map((m) => m.content)).toEqual(['first', 'one', 'second']);
  });

  it('slash commands: /help answers without the model, a pasted path goes to the model, /new clears', async () => {
    const bus = new MessageBus();
    const sessions = tempStore();
    const model = scripted([textStep('a path!'), textStep('after new')]);
    const loop = new AgentLoop({ bus, provider: model, tools: new ToolRegistry(), govern: simpleGovern, sessions });
    loop.dispatch({ channel: 'cli', senderId: 'me', chatId: 'c', content: '/help' });
    loop.dispatch({ channel: 'cli', senderId: 'me', chatId: 'c', content: '/home/me/notes.txt what is this?' });
    loop.dispatch({ channel: 'cli', senderId: 'me', chatId: 'c', content: '/nwe' });
    await loop.idle();
    const outs = bus.drainOutbound().map((m) => m.content);
    expect(outs[0].startsWith('🐈 nanobot commands:')).toBe(true);
    expect(outs[0]).toContain('/new');
    expect(outs[1]).toBe('a path!');
    expect(outs[2]).toBe('Unknown command "/nwe". Did you mean "/new"?');
    expect(model.requests).toHaveLength(1);
    const before = (await sessions.load('cli:c')).session;
    expect(before.messages.filter((m) => m._command === true)).toHaveLength(4);
    loop.dispatch({ channel: 'cli', senderId: 'me', chatId: 'c', content: '/new' });
    await loop.idle();
    expect(bus.drainOutbound().map((m) => m.content)).toEqual(['New session started.']);
    expect((await sessions.load('cli:c')).session.messages).toEqual([]);
  });

  it('/status counts the session it is asked in as active, with or without a running turn', async () => {
    const bus = new MessageBus();
    const loop = new AgentLoop({ bus, provider: scripted([textStep('hi')]), tools: new ToolRegistry(), govern: simpleGovern, sessions: tempStore() });
    loop.dispatch({ channel: 'cli', senderId: 'me', chatId: 'c', content: '/status' });
    await loop.idle();
    loop.dispatch({ channel: 'cli', senderId: 'me', chatId: 'c', content: 'hello' });
    await loop.idle();
    loop.dispatch({ channel: 'cli', senderId: 'me', chatId: 'c', content: '/status' });
    await loop.idle();
    const statuses = bus.drainOutbound().map((m) => m.content).filter((c) => c.includes('nanobot status'));
    expect(statuses).toHaveLength(2);
    for (const status of statuses) expect(status).toContain('Active sessions: 1 (0 with a turn running)');
  });

  it('/status and /stop run at once, even mid-turn; the stopped turn is saved legal', async () => {
    const bus = new MessageBus();
    const sessions = tempStore();
    const ref = {} as { loop: AgentLoop };
    const tools = statusThenStopTools(ref);
    const model = scripted([toolsStep(call('hang', {}, 'h1')), textStep('fresh start')]);
    ref.loop = new AgentLoop({ bus, provider: model, tools, govern: simpleGovern, sessions });
    ref.loop.dispatch({ channel: 'cli', senderId: 'me', chatId: 'c', content: 'do it' });
    await ref.loop.idle();
    const outs = bus.drainOutbound().map((m) => m.content);
    const status = outs.find((o) => o.includes('🐈 nanobot status'));
    expect(status).toContain('a turn is in progress');
    expect(outs).toContain('Stopped 1 task(s).');
    expect(outs).toHaveLength(2);
    const { session } = await sessions.load('cli:c');
    expect(legalityProblems(session.messages)).toEqual([]);
    expect(session.messages.at(-1)).toMatchObject({ role: 'assistant', content: '', _failure: { kind: 'interrupted' } });
    ref.loop.dispatch({ channel: 'cli', senderId: 'me', chatId: 'c', content: 'again' });
    await ref.loop.idle();
    expect(bus.drainOutbound().map((m) => m.content)).toEqual(['fresh start']);
    // The next request shows the interruption as a note, never as an assistant reply.
    const next = model.requests.at(-1)!.messages;
    expect(next.filter((m) => m.role === 'assistant' && typeof m.content === 'string' && m.content !== '').map((m) => m.content)).toEqual([]);
    expect(next.map((m) => m.content)).toContain(TURN_INTERRUPTED_NOTE);
    expect(legalityProblems((await sessions.load('cli:c')).session.messages)).toEqual([]);
  });

  it('/status reports what ran when it was asked, even when the session loads after a /stop ended the turn', async () => {
    const bus = new MessageBus();
    const store = tempStore();
    const ref = {} as { loop: AgentLoop };
    let turnEnded: () => void = () => {};
    const ended = new Promise<void>((resolve) => (turnEnded = resolve));
    let slowNextLoad = false;
    // A slow store: /status's load returns only once the stopped turn has saved and left.
    const sessions: SessionStore = {
      load: async (key) => {
        if (slowNextLoad) {
          slowNextLoad = false;
          await ended;
        }
        return store.load(key);
      },
      save: (session) => store.save(session),
      delete: (key) => store.delete(key),
      list: () => store.list(),
    };
    const tools = statusThenStopTools(ref, () => {
      slowNextLoad = true;
    });
    ref.loop = new AgentLoop({ bus, provider: scripted([toolsStep(call('hang', {}, 'h1'))]), tools, govern: simpleGovern, sessions });
    const turn = ref.loop.submit({ channel: 'cli', senderId: 'me', chatId: 'c', content: 'do it' });
    await turn;
    expect(ref.loop.activeSessions).toEqual([]);
    turnEnded();
    await ref.loop.idle();
    const status = bus.drainOutbound().map((m) => m.content).find((o) => o.includes('🐈 nanobot status'));
    expect(status).toContain('Running: a turn is in progress');
    expect(status).toContain('(1 with a turn running)');
  });

  it('a follow-up message is injected into the running turn', async () => {
    const bus = new MessageBus();
    const sessions = tempStore();
    const ref = {} as { loop: AgentLoop };
    const slow = defineTool({
      name: 'slow',
      description: 's',
      parameters: { type: 'object', properties: {} },
      execute: async () => {
        ref.loop.dispatch({ channel: 'cli', senderId: 'me', chatId: 'c', content: 'and also Y' });
        return 'did X';
      },
    });
    const tools = new ToolRegistry();
    tools.register(slow);
    const model = scripted([toolsStep(call('slow', {}, 's1')), textStep('X and Y done')]);
    ref.loop = new AgentLoop({ bus, provider: model, tools, govern: simpleGovern, sessions });
    ref.loop.dispatch({ channel: 'cli', senderId: 'me', chatId: 'c', content: 'do X' });
    await ref.loop.idle();
    expect(bus.drainOutbound().map((m) => m.content)).toEqual(['X and Y done']);
    expect(model.requests[1].messages.at(-1)).toEqual({ role: 'user', content: 'and also Y' });
    const { session } = await sessions.load('cli:c');
    expect(session.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'user', 'assistant']);
  });

  it('persists in flight: while a tool runs, its call is already on disk; finished results follow at the next checkpoint', async () => {
    const bus = new MessageBus();
    const dir = mkdtempSync(join(tmpdir(), 'runner-loop-'));
    dirs.push(dir);
    const sessions = new JsonlSessionStore({ dir, fsync: 'never' });
    const seenOnDisk: string[][] = [];
    const probe = defineTool({
      name: 'probe',
      description: 'p',
      parameters: { type: 'object', properties: {} },
      execute: async () => {
        // What a restarted process would load right now.
        const { session } = await new JsonlSessionStore({ dir }).load('cli:c');
        seenOnDisk.push(session.messages.map((m) => m.role));
        return 'probed';
      },
    });
    const tools = new ToolRegistry();
    tools.register(probe);
    const model = scripted([toolsStep(call('probe', {}, 'p1')), toolsStep(call('probe', {}, 'p2')), textStep('done')]);
    const loop = new AgentLoop({ bus, provider: model, tools, sessions });
    await loop.submit({ channel: 'cli', senderId: 'me', chatId: 'c', content: 'probe twice' });
    expect(seenOnDisk).toEqual([
      ['user', 'assistant'],
      ['user', 'assistant', 'tool', 'assistant'],
    ]);
    const { session } = await new JsonlSessionStore({ dir }).load('cli:c');
    expect(session.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'tool', 'assistant']);
  });

  it('stop() while turns are queued records every queued message and closes it as interrupted', async () => {
    const bus = new MessageBus();
    const sessions = tempStore();
    const model = new ScriptedProvider([{ content: 'slow answer', deltas: ['slow ', 'answer'] }, 'never', 'never'], { deltaDelayMs: 20 });
    const loop = new AgentLoop({ bus, provider: model, tools: new ToolRegistry(), sessions, maxConcurrentSessions: 1 });
    const a = loop.submit({ channel: 'cli', senderId: 'me', chatId: 'a', content: 'first' });
    const b = loop.submit({ channel: 'cli', senderId: 'me', chatId: 'b', content: 'queued' });
    while (model.requests.length === 0) await new Promise((r) => setTimeout(r, 1));
    await loop.stop();
    await Promise.all([a, b]);
    for (const key of ['cli:a', 'cli:b']) {
      const { session } = await sessions.load(key);
      expect(session.messages[0]).toMatchObject({ role: 'user' });
      expect(legalityProblems(session.messages)).toEqual([]);
      expect(session.messages.length).toBeGreaterThanOrEqual(2);
    }
    expect(model.requests.length).toBe(1);
  });

  it('messages arriving mid-turn keep their order: text is injected, a command and what follows wait their turn', async () => {
    const bus = new MessageBus();
    const sessions = tempStore();
    const ref = {} as { loop: AgentLoop };
    const busy = defineTool({
      name: 'busy',
      description: 'b',
      parameters: { type: 'object', properties: {} },
      execute: async () => {
        for (const content of ['also A', '/help', 'then B']) ref.loop.dispatch({ channel: 'cli', senderId: 'me', chatId: 'c', content });
        return 'busy done';
      },
    });
    const tools = new ToolRegistry();
    tools.register(busy);
    const model = scripted([toolsStep(call('busy', {}, 'b1')), textStep('first reply'), textStep('reply to B')]);
    ref.loop = new AgentLoop({ bus, provider: model, tools, sessions });
    ref.loop.dispatch({ channel: 'cli', senderId: 'me', chatId: 'c', content: 'start' });
    await ref.loop.idle();
    const outs = bus.drainOutbound().map((m) => m.content);
    expect(outs[0]).toBe('first reply');
    expect(outs[1].startsWith('🐈 nanobot commands:')).toBe(true);
    expect(outs[2]).toBe('reply to B');
    expect(model.requests[1].messages.at(-1)).toEqual({ role: 'user', content: 'also A' });
    const { session } = await sessions.load('cli:c');
    expect(session.messages.filter((m) => m.role === 'user').map((m) => m.content)).toEqual(['start', 'also A', '/help', 'then B']);
  });

  it('a dangling user turn from a crash is closed at RESTORE', async () => {
    const session = new Session({ key: 'k', messages: [{ role: 'user', content: 'lost' }, { role: 'assistant', content: '', tool_calls: [{ id: 'z', type: 'function', function: { name: 'x', arguments: '{}' } }] }] });
    expect(repairTail(session)).toBe(true);
    expect(legalityProblems(session.messages)).toEqual([]);
    expect(session.messages.at(-1)).toMatchObject({ role: 'assistant', content: '', _failure: { kind: 'interrupted' } });
    expect(session.messages.at(-2)).toMatchObject({ role: 'tool', tool_call_id: 'z', name: 'x', _failure: { kind: 'interrupted' } });
    expect(repairTail(session)).toBe(false);
  });

  it('a stored tool call list with malformed entries does not break RESTORE, and the next turn is saved', async () => {
    const sessions = tempStore();
    const { session } = await sessions.load('cli:c');
    const bad = [null, { id: 5 }, { function: 'x' }] as unknown as NonNullable<Message['tool_calls']>;
    session.messages.push({ role: 'user', content: 'q' }, { role: 'assistant', content: null, tool_calls: bad });
    await sessions.save(session);
    const bus = new MessageBus();
    const model = scripted([textStep('hello back')]);
    const errors: unknown[] = [];
    // The real governor (no `govern` stand-in): it strips the malformed calls from the model copy.
    const loop = new AgentLoop({ bus, provider: model, tools: new ToolRegistry(), sessions, onError: (e) => errors.push(e) });
    loop.dispatch({ channel: 'cli', senderId: 'me', chatId: 'c', content: 'hello' });
    await loop.idle();
    expect(errors).toEqual([]);
    expect(bus.drainOutbound().map((m) => m.content)).toEqual(['hello back']);
    const after = (await sessions.load('cli:c')).session.messages;
    expect(after.filter((m) => m.role === 'user').map((m) => m.content)).toEqual(['q', 'hello']);
    expect(after.at(-1)).toMatchObject({ role: 'assistant', content: 'hello back' });
  });

  it('a failing model reply is reported as a sorry-style answer and the session stays legal', async () => {
    const bus = new MessageBus();
    const sessions = tempStore();
    const model = scripted([{ error: new Error('upstream 500') }]);
    const loop = new AgentLoop({ bus, provider: model, tools: new ToolRegistry(), govern: simpleGovern, sessions });
    loop.dispatch({ channel: 'cli', senderId: 'me', chatId: 'c', content: 'hi' });
    await loop.idle();
    expect(bus.drainOutbound()[0].content).toBe('Error calling LLM: upstream 500');
    expect(legalityProblems((await sessions.load('cli:c')).session.messages)).toEqual([]);
  });
});

/** Answers by looking at the request, so 50 sessions can share one model. */
class RoutingModel implements LLMProvider {
  readonly name = 'routing';
  readonly defaultModel = 'routing-1';
  #n = 0;

  async chat(request: LLMRequest): Promise<LLMResponse> {
    return this.#answer(request);
  }

  async *stream(request: LLMRequest): AsyncIterable<LLMStreamEvent> {
    await new Promise((r) => setTimeout(r, Math.random() * 3));
    const response = this.#answer(request);
    if (response.content) yield { type: 'text_delta', delta: response.content };
    yield { type: 'done', response };
  }

  #answer(request: LLMRequest): LLMResponse {
    const messages = request.messages;
    const base = { usage: { inputTokens: 1, outputTokens: 1 } };
    const system = String(messages[0]?.content ?? '');
    const last = messages[messages.length - 1];
    if (system.startsWith('# Subagent')) {
      const task = String(messages[1].content);
      return { ...base, content: `result of ${task}`, toolCalls: [], finishReason: 'stop' };
    }
    const firstUser = messages.find((m) => m.role === 'user' && String(m.content).startsWith('hello from'));
    const who = String(firstUser?.content ?? '').replace('hello from ', '');
    const lastText = String(last.content);
    if (last.role === 'user' && lastText.includes('[Subagent')) {
      return { ...base, content: `summary for ${who}`, toolCalls: [], finishReason: 'stop' };
    }
    if (last.role === 'user') {
      this.#n += 1;
      return {
        ...base,
        content: '',
        toolCalls: [
          { id: `m${this.#n}`, name: 'message', arguments: { content: `progress for ${who}` } },
          { id: `s${this.#n}`, name: 'spawn', arguments: { task: `work for ${who}` } },
        ],
        finishReason: 'tool_calls',
      };
    }
    return { ...base, content: `done for ${who}`, toolCalls: [], finishReason: 'stop' };
  }
}

describe('50 sessions at once', () => {
  it('every message and subagent result reaches its own chat, none lost, per-session order kept', async () => {
    const bus = new MessageBus();
    const sessions = tempStore();
    const provider = new RoutingModel();
    const ref = {} as { loop: AgentLoop; manager: SubagentManager };
    const coreTools = new ToolRegistry();
    const subTools = new ToolRegistry();
    const manager = new SubagentManager({ bus, provider, tools: subTools });
    ref.manager = manager;
    const loop = new AgentLoop({ bus, provider, tools: coreTools, sessions, subagents: manager, maxConcurrentSessions: 8 });
    ref.loop = loop;
    // The real built-in tools: the target chat comes from each call's ToolContext.
    coreTools.register(createMessageTool({ sender: loop.messageSender }));
    coreTools.register(createSpawnTool({ spawner: manager }));
    const received = new Map<string, OutboundMessage[]>();
    bus.onOutbound((m) => {
      const list = received.get(m.chatId) ?? [];
      list.push(m);
      received.set(m.chatId, list);
    });
    loop.start();
    const N = 50;
    for (let i = 0; i < N; i += 1) bus.publishInbound({ channel: 'web', senderId: `u${i}`, chatId: `chat${i}`, content: `hello from s${i}` });
    for (;;) {
      await loop.idle();
      await manager.idle();
      await new Promise((r) => setTimeout(r, 5));
      if (bus.inboundSize === 0 && loop.activeSessions.length === 0 && manager.running() === 0) {
        await loop.idle();
        if ([...received.values()].reduce((n, l) => n + l.length, 0) >= 2 * N) break;
      }
    }
    await loop.stop();
    expect(received.size).toBe(N);
    for (let i = 0; i < N; i += 1) {
      const list = received.get(`chat${i}`)!;
      expect(list.map((m) => m.content)).toEqual([`progress for s${i}`, `summary for s${i}`]);
      expect(list.every((m) => m.channel === 'web' && m.sessionKey === `web:chat${i}`)).toBe(true);
      const { session } = await sessions.load(`web:chat${i}`);
      expect(legalityProblems(session.messages)).toEqual([]);
      expect(session.messages.some((m) => String(m.content).includes(`result of work for s${i}`))).toBe(true);
    }
  });
});

export type { Message };
