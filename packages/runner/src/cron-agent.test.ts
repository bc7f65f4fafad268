// The cron tool wired by createAgent: a job created in a chat fires on time into that chat's
// session, and a new agent on the same sessions directory keeps and fires it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { LLMRequest } from '@nanobot/schema';
import { ScriptedProvider } from '@nanobot/providers/testing';
import { createAgent } from './create-agent.js';
import type { OutboundMessage } from './bus/index.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function temp(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
}
const lastUserText = (request: LLMRequest): string => String([...request.messages].reverse().find((m) => m.role === 'user')?.content ?? '');
async function until(check: () => boolean, timeoutMs = 20_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('cron through createAgent', () => {
  it('a job made in one chat fires into that chat’s session, and survives a restart', async () => {
    const workspace = temp('cron-ws-');
    const sessionsDir = temp('cron-sessions-');
    const provider = new ScriptedProvider((request) => {
      const text = lastUserText(request);
      if (text.includes('remind me')) {
        if (request.messages.at(-1)?.role === 'tool') return 'Reminder set.';
        return { toolCalls: [{ name: 'cron', arguments: { action: 'add', name: 'stretch', message: 'Time to stretch', every_seconds: 1 } }] };
      }
      if (text.includes('Cron job: Time to stretch')) return 'Stretch now!';
      return 'ok';
    }, { whenExhausted: 'repeat-last' });
    const agent = createAgent({ workspace, provider, sessionsDir, web: false, exec: false, cron: { pollMs: 50 } });
    expect(agent.tools.has('cron')).toBe(true);
    const outbound: OutboundMessage[] = [];
    agent.bus.onOutbound((m) => void outbound.push(m));
    agent.start();
    // The job is made while the scheduler is paused: a message for a session mid-turn joins that
    // turn, so a first run due 1 s after the job was made joined the turn that made it whenever
    // the turn outlasted that second (a loaded CI machine), and became its reply.
    await agent.cron!.stop();
    const set = await agent.ask('please remind me to stretch', { channel: 'telegram', chatId: '42' });
    expect(set.reply?.content).toBe('Reminder set.');
    agent.cron!.start();
    await until(() => outbound.some((m) => m.content === 'Stretch now!'));
    const fired = outbound.find((m) => m.content === 'Stretch now!')!;
    expect([fired.channel, fired.chatId]).toEqual(['telegram', '42']);
    await agent.stop();
    const history = (await agent.sessions.load('telegram:42')).session.messages.map((m) => String(m.content));
    expect(history.some((c) => c.includes('Cron job: Time to stretch'))).toBe(true);
    expect((await agent.sessions.load('cli:direct')).session.messages).toHaveLength(0);

    // A new process on the same sessions directory: the job is still there and fires again.
    const again = createAgent({ workspace, provider, sessionsDir, web: false, exec: false, cron: { pollMs: 50 } });
    const jobs = await again.cron!.list();
    expect(jobs.map((j) => [j.name, j.sessionKey])).toEqual([['stretch', 'telegram:42']]);
    const before = (await again.sessions.load('telegram:42')).session.messages.length;
    const second: OutboundMessage[] = [];
    again.bus.onOutbound((m) => void second.push(m));
    again.start();
    await until(() => second.some((m) => m.content === 'Stretch now!'));
    await again.stop();
    expect((await again.sessions.load('telegram:42')).session.messages.length).toBeGreaterThan(before);
  }, 60_000);
});
