import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { ScriptedProvider } from '@nanobot/providers/testing';
import { createAgent } from './create-agent.js';

it('the README example runs', async () => {
  const workspace = mkdtempSync(join(tmpdir(), 'nanobot-ws-'));
  const sessionsDir = mkdtempSync(join(tmpdir(), 'nanobot-sessions-'));
  try {
    writeFileSync(join(workspace, 'todo.txt'), 'buy milk\n');
    const provider = new ScriptedProvider([{ toolCalls: [{ name: 'read_file', arguments: { path: 'todo.txt' } }] }, 'Your list says: buy milk.']);
    const agent = createAgent({ workspace, provider, sessionsDir });
    const { reply, result } = await agent.ask('What is on my list?');
    expect(reply?.content).toBe('Your list says: buy milk.');
    expect(result?.toolsUsed).toEqual(['read_file']);
    expect(String(provider.requests[1].messages.at(-1)?.content)).toContain('buy milk');
    await agent.stop();
  } finally {
    rmSync(workspace, { recursive: true, force: true });
    rmSync(sessionsDir, { recursive: true, force: true });
  }
});
