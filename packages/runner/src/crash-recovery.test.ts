import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkLegality } from '@nanobot/governor';
import { ScriptedProvider } from '@nanobot/providers/testing';
import { ToolRegistry } from '@nanobot/registry';
import { JsonlSessionStore } from '@nanobot/session';
import type { Session, SessionStore } from '@nanobot/session';
import { defineTool } from '@nanobot/tools-core';
import { AgentLoop } from './agent-loop.js';
import { MessageBus } from './bus/index.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

class ProcessDied extends Error {}

/** A store whose process "dies" at the n-th save: that save and every later one never reach disk. */
function dyingStore(inner: JsonlSessionStore, dieAt: number): SessionStore {
  let saves = 0;
  let dead = false;
  return {
    load: (key) => inner.load(key),
    delete: (key) => inner.delete(key),
    list: () => inner.list(),
    async save(session: Session) {
      saves += 1;
      if (saves >= dieAt) dead = true;
      if (dead) throw new ProcessDied(`died at save ${saves}`);
      await inner.save(session);
    },
  };
}

function tools(): ToolRegistry {
  const registry = new ToolRegistry();
  registry.register(defineTool({ name: 'work', description: 'w', parameters: { type: 'object', properties: {} }, execute: () => 'worked' }));
  return registry;
}

const script = () => [
  { toolCalls: [{ name: 'work', arguments: {} }, { name: 'work', arguments: {} }] },
  { toolCalls: [{ name: 'work', arguments: {} }] },
  'first turn done',
];

describe('crash at any save, restart, next turn', () => {
  it.each([1, 2, 3, 4, 5, 6, 7])('dying at save %i: the restarted loop repairs the tail, keeps what was saved, and answers', async (dieAt) => {
    const dir = mkdtempSync(join(tmpdir(), 'runner-crash-'));
    dirs.push(dir);
    const first = new AgentLoop({ bus: new MessageBus(), provider: new ScriptedProvider(script()), tools: tools(), sessions: dyingStore(new JsonlSessionStore({ dir, fsync: 'never' }), dieAt) });
    await first.submit({ channel: 'cli', senderId: 'u', chatId: 'c', content: 'do the work' }).catch(() => undefined);
    await first.stop();
    const saved = (await new JsonlSessionStore({ dir }).load('cli:c')).session.messages.map((m) => ({ role: m.role, content: m.content, tool_call_id: m.tool_call_id }));

    const bus = new MessageBus();
    const second = new AgentLoop({ bus, provider: new ScriptedProvider(['second turn done']), tools: tools(), sessions: new JsonlSessionStore({ dir, fsync: 'never' }) });
    const outcome = await second.submit({ channel: 'cli', senderId: 'u', chatId: 'c', content: 'are you back?' });
    await second.stop();
    expect(outcome.reply?.content).toBe('second turn done');
    const after = (await new JsonlSessionStore({ dir }).load('cli:c')).session.messages;
    expect(checkLegality(after)).toEqual([]);
    // Nothing that reached disk before the crash is lost or changed.
    expect(after.slice(0, saved.length).map((m) => ({ role: m.role, content: m.content, tool_call_id: m.tool_call_id }))).toEqual(saved);
    expect(after.at(-2)).toMatchObject({ role: 'user', content: 'are you back?' });
  });
});
