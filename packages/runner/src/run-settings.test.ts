import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ScriptedProvider } from '@nanobot/providers/testing';
import { ToolRegistry } from '@nanobot/registry';
import { JsonlSessionStore } from '@nanobot/session';
import { AgentLoop } from './agent-loop.js';
import { MessageBus } from './bus/index.js';
import { createAgent } from './create-agent.js';
import { runSettingsOf, type RunSettings } from './run-settings.js';
import type { RunnerEvent } from './runner-events.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function temp(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
}

describe('RunSettings, declared once and passed whole', () => {
  it('runSettingsOf keeps the settings that are set and nothing else, leaving its input alone', () => {
    const events = (): void => undefined;
    const options = Object.freeze({ bus: 'not a setting', model: 'm', temperature: undefined, maxTokens: 12, events, calibrator: null, compact: () => undefined });
    const settings = runSettingsOf(options as RunSettings);
    expect(settings).toEqual({ model: 'm', maxTokens: 12, events, calibrator: null });
    expect(Object.keys(options)).toHaveLength(7);
  });

  it('the loop hands every setting to its runs, including ones it never named', async () => {
    const provider = new ScriptedProvider(['fine']);
    const loop = new AgentLoop({
      bus: new MessageBus(),
      provider,
      tools: new ToolRegistry(),
      sessions: new JsonlSessionStore({ dir: temp('settings-loop-'), fsync: 'never' }),
      systemPrompt: 'sys',
      model: 'some-model',
      maxTokens: 321,
      temperature: 0.25,
      reasoningEffort: 'high',
      stream: false,
    });
    await loop.submit({ channel: 'test', senderId: 'u', chatId: 'c', content: 'hi' });
    await loop.stop();
    expect(provider.requests[0]).toMatchObject({ model: 'some-model', maxTokens: 321, temperature: 0.25, reasoningEffort: 'high' });
  });

  it("createAgent passes its settings to the loop, and to subagents all but the main agent's hooks and reply shape", async () => {
    const workspace = temp('settings-ws-');
    const provider = new ScriptedProvider(['main answer', 'sub answer']);
    const hooked: string[] = [];
    const events: RunnerEvent[] = [];
    const agent = createAgent({
      workspace,
      provider,
      sessionsDir: temp('settings-sessions-'),
      web: false,
      exec: false,
      contextBuilder: false,
      model: 'gpt-4o',
      maxTokens: 777,
      temperature: 0.5,
      reasoningEffort: 'low',
      contextWindowTokens: 50_000,
      hooks: { beforeModel: (ctx) => void hooked.push(ctx.sessionKey ?? '') },
      events: (e) => void events.push(e),
    });
    await agent.ask('hello', { chatId: 'c1' });
    const outcome = await agent.subagents!.spawn({ task: 'do it', label: 'do', wait: true, origin: { sessionKey: 'cli:c1', channel: 'cli', chatId: 'c1' } });
    await agent.stop();
    expect(outcome).toMatchObject({ kind: 'completed', result: 'sub answer' });
    const [main, sub] = provider.requests;
    expect(main).toMatchObject({ model: 'gpt-4o', maxTokens: 777, temperature: 0.5, reasoningEffort: 'low' });
    expect(sub).toMatchObject({ model: 'gpt-4o', reasoningEffort: 'low' });
    expect(sub.maxTokens).toBeUndefined();
    expect(sub.temperature).toBeUndefined();
    expect(hooked).toEqual(['cli:c1']);
    // Events (a setting) reach both; one Governor serves the agent and its subagents.
    expect(new Set(events.filter((e) => e.type === 'turn_start').map((e) => e.sessionKey?.split(':')[0]))).toEqual(new Set(['cli', 'subagent']));
    expect(agent.governor).toBe(agent.runner.governor);
    expect(agent.governor.sessionState('cli:c1')).toBeDefined();
  });
});
