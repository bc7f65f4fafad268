import { describe, expect, it } from 'vitest';
import { ScriptedProvider } from '@nanobot/providers/testing';
import { ToolRegistry } from '@nanobot/registry';
import { defineTool, toolResult } from '@nanobot/tools-core';
import { MessageBus } from './bus/index.js';
import { SubagentManager, SUBAGENT_NO_RESPONSE } from './subagent-manager.js';

const origin = { sessionKey: 'telegram:42', channel: 'telegram', chatId: '42', messageId: 'm1' };

function tools(): ToolRegistry {
  const registry = new ToolRegistry();
  registry.register(defineTool({ name: 'step', description: 's', parameters: { type: 'object', properties: {} }, execute: () => 'step done' }));
  registry.register(defineTool({ name: 'fail', description: 'f', parameters: { type: 'object', properties: {} }, execute: () => toolResult.error('Error: disk full') }));
  return registry;
}

describe('SubagentManager', () => {
  it('wait=true runs inline and returns the result; the subagent sees only its task', async () => {
    const provider = new ScriptedProvider(['the answer']);
    const manager = new SubagentManager({ bus: new MessageBus(), provider, tools: tools() });
    const outcome = await manager.spawn({ task: 'compute it', label: 'compute', wait: true, origin });
    expect(outcome).toMatchObject({ kind: 'completed', result: 'the answer', isError: false });
    const sent = provider.requests[0].messages;
    expect(sent.map((m) => m.role)).toEqual(['system', 'user']);
    expect(sent[1].content).toBe('compute it');
    expect(String(sent[0].content)).toContain('# Subagent');
  });

  it('a background result is announced to the origin session as a system message', async () => {
    const bus = new MessageBus();
    const manager = new SubagentManager({ bus, provider: new ScriptedProvider(['found 3 files']), tools: tools() });
    const outcome = await manager.spawn({ task: 'count files', label: 'count', wait: false, origin });
    expect(outcome.kind).toBe('started');
    const announced = await bus.consumeInbound();
    expect(announced).toMatchObject({
      channel: 'system',
      senderId: 'subagent',
      chatId: 'telegram:42',
      sessionKeyOverride: 'telegram:42',
      metadata: { injected_event: 'subagent_result', subagent_task_id: (outcome as { id: string }).id, origin_message_id: 'm1' },
    });
    expect(announced.content).toContain("[Subagent 'count' completed successfully]");
    expect(announced.content).toContain('Task: count files');
    expect(announced.content).toContain('found 3 files');
  });

  it('refuses beyond the per-session limit, other sessions unaffected', async () => {
    let release!: () => void;
    const gate = new Promise<string>((r) => (release = () => r('done')));
    const provider = new ScriptedProvider(() => gate);
    const manager = new SubagentManager({ bus: new MessageBus(), provider, tools: tools() });
    expect((await manager.spawn({ task: 'a', label: 'a', wait: false, origin })).kind).toBe('started');
    expect(await manager.spawn({ task: 'b', label: 'b', wait: false, origin })).toEqual({ kind: 'limit', running: 1, limit: 1 });
    expect((await manager.spawn({ task: 'c', label: 'c', wait: false, origin: { ...origin, sessionKey: 'other', chatId: '7' } })).kind).toBe('started');
    expect(manager.running()).toBe(2);
    release();
    await manager.idle();
  });

  it('fails fast on a tool error and reports completed steps and the failure', async () => {
    const provider = new ScriptedProvider([
      { toolCalls: [{ name: 'step', arguments: {} }] },
      { toolCalls: [{ name: 'fail', arguments: {} }] },
      'never reached',
    ]);
    const manager = new SubagentManager({ bus: new MessageBus(), provider, tools: tools() });
    const outcome = await manager.spawn({ task: 't', label: 't', wait: true, origin });
    expect(outcome).toMatchObject({ kind: 'completed', isError: true });
    expect((outcome as { result: string }).result).toBe('Completed steps:\n- step: step done\n\nFailure:\n- fail: Error: disk full');
  });

  it('cancel stops a background subagent without announcing; no answer gives the reference text', async () => {
    const bus = new MessageBus();
    const provider = new ScriptedProvider([{ content: 'slow', deltas: ['s', 'l', 'o', 'w'] }], { deltaDelayMs: 20 });
    const manager = new SubagentManager({ bus, provider, tools: tools() });
    await manager.spawn({ task: 'x', label: 'x', wait: false, origin });
    expect(manager.cancel('telegram:42')).toBe(1);
    await manager.idle();
    expect(bus.inboundSize).toBe(0);
    const empty = new SubagentManager({ bus, provider: new ScriptedProvider([{ toolCalls: [{ name: 'step', arguments: {} }] }]), tools: tools(), maxIterations: 1 });
    const outcome = await empty.spawn({ task: 'y', label: 'y', wait: true, origin });
    expect(outcome).toMatchObject({ kind: 'completed', result: SUBAGENT_NO_RESPONSE });
  });
});
