// Issue 29, item 4, end to end: an interrupted turn, a failed request, a crash and sessions written
// by earlier versions all continue with a request that OpenAI and Anthropic accept (checked with
// the governor's `checkLegality` for each target, on what the provider really received) and that
// holds no assistant text the model did not produce.
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ContextBuilder } from '@nanobot/context-builder';
import { checkLegality } from '@nanobot/governor';
import { JsonlSessionStore, Session, sessionFileName } from '@nanobot/session';
import { ToolRegistry } from '@nanobot/registry';
import { defineTool } from '@nanobot/tools-core';
import { LEGACY_FAILURE_TEXTS, MODEL_ERROR_NOTE, TOOL_INTERRUPTED_NOTE, TURN_INTERRUPTED_NOTE, type Message } from '@nanobot/schema';
import type { ScriptedProvider } from '@nanobot/providers/testing';
import { AgentLoop } from './agent-loop.js';
import { MessageBus } from './bus/index.js';
import { call, scripted, textStep, toolsStep } from './test-support/fake-model.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'runner-failures-'));
  dirs.push(dir);
  return dir;
}

const TARGETS = ['openai', 'anthropic'] as const;
const LEGACY: readonly string[] = [LEGACY_FAILURE_TEXTS.turnInterrupted, LEGACY_FAILURE_TEXTS.toolInterrupted, ...LEGACY_FAILURE_TEXTS.modelError];
const textOf = (content: unknown): string =>
  typeof content === 'string'
    ? content
    : Array.isArray(content)
      ? content.map((p) => (p && typeof p === 'object' && typeof (p as { text?: unknown }).text === 'string' ? (p as { text: string }).text : '')).join('')
      : '';

/** What the provider received on its last request, checked for `target` and for invented speech. */
function expectHonestRequest(model: ScriptedProvider, target: (typeof TARGETS)[number], spoken: readonly string[]): Message[] {
  const request = model.requests.at(-1)!.messages as Message[];
  expect(checkLegality(request, { target })).toEqual([]);
  for (const m of request) {
    if (m.role !== 'assistant') continue;
    const text = textOf(m.content).trim();
    if (text !== '') expect(spoken).toContain(text);
  }
  const all = JSON.stringify(request);
  for (const legacy of LEGACY) expect(all).not.toContain(legacy);
  return request;
}

function loopFor(model: ScriptedProvider, tools: ToolRegistry, sessions: JsonlSessionStore, target: (typeof TARGETS)[number]): AgentLoop {
  return new AgentLoop({ bus: new MessageBus(), provider: model, tools, sessions, systemPrompt: 'You are nanobot.', governOptions: { target } });
}

describe.each(TARGETS)('continuing after a failure (target %s)', (target) => {
  it('an interrupted turn (/stop while a tool runs)', async () => {
    const sessions = new JsonlSessionStore({ dir: tempDir(), fsync: 'never' });
    const ref = {} as { loop: AgentLoop };
    const hang = defineTool({
      name: 'hang',
      description: 'waits until stopped',
      execute: (_a, ctx) =>
        new Promise((resolve) => {
          ctx.signal.addEventListener('abort', () => resolve('late'));
          queueMicrotask(() => ref.loop.dispatch({ channel: 'cli', senderId: 'me', chatId: 'c', content: '/stop' }));
        }),
    });
    const tools = new ToolRegistry();
    tools.register(hang);
    const model = scripted([toolsStep(call('hang', {}, 'h1')), textStep('fresh start')]);
    ref.loop = loopFor(model, tools, sessions, target);
    ref.loop.dispatch({ channel: 'cli', senderId: 'me', chatId: 'c', content: 'wait for it' });
    await ref.loop.idle();
    const stored = (await sessions.load('cli:c')).session.messages;
    expect(stored.slice(-2)).toMatchObject([
      { role: 'tool', tool_call_id: 'h1', content: TOOL_INTERRUPTED_NOTE, _failure: { kind: 'interrupted' } },
      { role: 'assistant', content: '', _failure: { kind: 'interrupted' } },
    ]);
    ref.loop.dispatch({ channel: 'cli', senderId: 'me', chatId: 'c', content: 'again' });
    await ref.loop.idle();
    const request = expectHonestRequest(model, target, []);
    const text = JSON.stringify(request);
    expect(text).toContain(TOOL_INTERRUPTED_NOTE.slice(1, -1));
    expect(text).toContain(TURN_INTERRUPTED_NOTE.slice(1, -1));
  });

  it('a failed request', async () => {
    const sessions = new JsonlSessionStore({ dir: tempDir(), fsync: 'never' });
    const model = scripted([{ content: 'upstream returned 500', finishReason: 'error' }, textStep('Here it is.')]);
    const bus = new MessageBus();
    const loop = new AgentLoop({ bus, provider: model, tools: new ToolRegistry(), sessions, systemPrompt: 'You are nanobot.', governOptions: { target } });
    loop.dispatch({ channel: 'cli', senderId: 'me', chatId: 'c', content: 'summarise' });
    await loop.idle();
    expect(bus.drainOutbound().map((m) => m.content)).toEqual(['upstream returned 500']);
    const stored = (await sessions.load('cli:c')).session.messages;
    expect(stored.at(-1)).toMatchObject({ role: 'assistant', content: '', _failure: { kind: 'model_error', detail: 'upstream returned 500' } });
    loop.dispatch({ channel: 'cli', senderId: 'me', chatId: 'c', content: 'try again' });
    await loop.idle();
    const request = expectHonestRequest(model, target, []);
    expect(JSON.stringify(request)).toContain(MODEL_ERROR_NOTE.slice(1, -1));
    // The error text the user saw is data for the UI, not something the model is told it said.
    expect(JSON.stringify(request)).not.toContain('upstream returned 500');
  });

  it('a crash that left only the user message (closed at RESTORE)', async () => {
    const dir = tempDir();
    const sessions = new JsonlSessionStore({ dir, fsync: 'never' });
    await sessions.save(new Session({ key: 'cli:c', messages: [{ role: 'user', content: 'hi' }, { role: 'assistant', content: 'Hello!' }, { role: 'user', content: 'then the power went out' }] }));
    const model = scripted([textStep('Back again.')]);
    const loop = loopFor(model, new ToolRegistry(), new JsonlSessionStore({ dir, fsync: 'never' }), target);
    loop.dispatch({ channel: 'cli', senderId: 'me', chatId: 'c', content: 'you there?' });
    await loop.idle();
    const request = expectHonestRequest(model, target, ['Hello!']);
    expect(JSON.stringify(request)).toContain(TURN_INTERRUPTED_NOTE.slice(1, -1));
  });

  it('with the context builder: the next message is stored as written, the note stays its own row', async () => {
    const sessions = new JsonlSessionStore({ dir: tempDir(), fsync: 'never' });
    const contextBuilder = new ContextBuilder({ workspace: tempDir(), runtime: 'Linux x86_64, Node v20.0.0', platform: 'posix', skillEnvironment: { env: {}, hasBinary: () => true } });
    const model = scripted([{ content: 'upstream returned 500', finishReason: 'error' }, textStep('Here it is.')]);
    const loop = new AgentLoop({ bus: new MessageBus(), provider: model, tools: new ToolRegistry(), sessions, contextBuilder, governOptions: { target } });
    loop.dispatch({ channel: 'cli', senderId: 'me', chatId: 'c', content: 'summarise' });
    await loop.idle();
    loop.dispatch({ channel: 'cli', senderId: 'me', chatId: 'c', content: 'try again' });
    await loop.idle();
    const request = expectHonestRequest(model, target, []);
    expect(JSON.stringify(request)).toContain(MODEL_ERROR_NOTE.slice(1, -1));
    const stored = (await sessions.load('cli:c')).session.messages;
    const users = stored.filter((m) => m.role === 'user').map((m) => textOf(m.content));
    expect(users).toHaveLength(2);
    expect(users[0].startsWith('summarise')).toBe(true);
    expect(users[1].startsWith('try again')).toBe(true);
    for (const text of users) expect(text).not.toContain(MODEL_ERROR_NOTE);
  });

  for (const [file, channel, chatId, spoken] of [
    ['failures-written-by-0.x.jsonl', 'cli', 'direct', ['Hi! 2 + 2 is 4.']],
    ['failures-written-by-reference.jsonl', 'telegram', '77', ['Hi!']],
  ] as const) {
    it(`a session written earlier: ${file}`, async () => {
      const dir = tempDir();
      copyFileSync(join(process.env.NANOBOT_FIXTURES_DIR!, 'stored-failures', file), join(dir, sessionFileName(`${channel}:${chatId}`)));
      const model = scripted([textStep('Noted.')]);
      const loop = loopFor(model, new ToolRegistry(), new JsonlSessionStore({ dir, fsync: 'never' }), target);
      loop.dispatch({ channel, senderId: 'me', chatId, content: 'next question' });
      await loop.idle();
      const request = expectHonestRequest(model, target, spoken);
      const text = JSON.stringify(request);
      expect(text).toContain(TURN_INTERRUPTED_NOTE.slice(1, -1));
      expect(text).toContain(MODEL_ERROR_NOTE.slice(1, -1));
      expect(text).toContain(TOOL_INTERRUPTED_NOTE.slice(1, -1));
    });
  }
});
