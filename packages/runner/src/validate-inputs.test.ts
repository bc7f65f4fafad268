import { describe, expect, it } from 'vitest';
import { ConfigurationError, ValidationError } from '@nanobot/schema';
import { ScriptedProvider } from '@nanobot/providers/testing';
import { ToolRegistry } from '@nanobot/registry';
import { AgentRunner } from './agent-runner.js';
import type { AgentRunSpec } from './agent-runner.js';
import { AgentLoop } from './agent-loop.js';
import { MessageBus } from './bus/index.js';

const good = (): AgentRunSpec => ({ initialMessages: [{ role: 'user', content: 'hi' }], provider: new ScriptedProvider(['ok']), tools: new ToolRegistry() });

describe('bad input to the runner and the loop', () => {
  it.each([
    ['no messages', { initialMessages: undefined }, 'initialMessages must be an array'],
    ['a non-message', { initialMessages: [42] }, 'initialMessages[0] must be a message object'],
    ['no provider', { provider: {} }, 'provider must implement LLMProvider'],
    ['a plain tool list', { tools: [] }, 'tools must be a ToolRegistry'],
    ['zero iterations', { maxIterations: 0 }, 'maxIterations must be an integer >= 1'],
  ])('%s → ConfigurationError, nothing sent', async (_name, patch, text) => {
    const provider = new ScriptedProvider(['ok']);
    const spec = { ...good(), provider, ...patch } as AgentRunSpec;
    const error = await new AgentRunner().run(spec).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigurationError);
    expect((error as Error).message).toContain(text);
    expect(provider.requests).toHaveLength(0);
  });

  it('a malformed inbound message is rejected by submit, reported by the consumer, and later messages still run', async () => {
    const bus = new MessageBus();
    const errors: unknown[] = [];
    const loop = new AgentLoop({
      bus,
      provider: new ScriptedProvider(['fine']),
      tools: new ToolRegistry(),
      sessions: { load: async () => { throw new Error('unused'); }, save: async () => undefined, delete: async () => false, list: async () => [] },
      onError: (e) => errors.push(e),
    });
    await expect(loop.submit({ channel: 'cli', chatId: 'c', senderId: 'u', content: 42 as unknown as string })).rejects.toBeInstanceOf(ValidationError);
    expect(() => loop.dispatch({ channel: '', chatId: 'c', senderId: 'u', content: 'x' })).toThrow(ValidationError);
    loop.start();
    bus.publishInbound({ channel: 'cli', chatId: 'c' } as never);
    await new Promise((r) => setTimeout(r, 5));
    expect(errors[0]).toBeInstanceOf(ValidationError);
    await loop.stop();
  });
});
