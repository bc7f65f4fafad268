import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ScriptedProvider } from '@nanobot/providers/testing';
import { createAgent, type Agent } from './create-agent.js';

const dirs: string[] = [];
const agents: Agent[] = [];
afterEach(async () => {
  for (const agent of agents.splice(0)) await agent.stop();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  // Generous: stopping saves every session, and the machine may be loaded.
}, 60_000);
function temp(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
}

/** Whether a pid is gone; a zombie counts as gone. */
function isGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return true;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return true;
  }
}

/** Waits (bounded) for the kernel to reap; not a timing assertion. */
async function eventuallyGone(pid: number): Promise<boolean> {
  for (let i = 0; i < 100 && !isGone(pid); i++) await new Promise((r) => setTimeout(r, 50));
  return isGone(pid);
}

/**
 * Live processes whose command line holds `marker`: every process of a session (bwrap, its
 * namespace's init, the shell, the sleep), wherever it was re-parented to.
 */
function processesWith(marker: string): number[] {
  const out: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      if (readFileSync(`/proc/${name}/cmdline`, 'latin1').includes(marker) && !isGone(Number(name))) out.push(Number(name));
    } catch {
      // Exited while we looked.
    }
  }
  return out;
}

async function eventuallyNoneWith(marker: string): Promise<boolean> {
  for (let i = 0; i < 100 && processesWith(marker).length > 0; i++) await new Promise((r) => setTimeout(r, 50));
  return processesWith(marker).length === 0;
}

/** Every turn: the model starts one background `sleep` (of `seconds`, which marks its processes), then says so. */
function sleeper(turns: number, seconds = '300'): ScriptedProvider {
  const script = [];
  for (let i = 0; i < turns; i++) {
    script.push({ toolCalls: [{ id: `x${i}`, name: 'exec', arguments: { command: `sleep ${seconds}; true`, yield_time_ms: 0 } }] });
    script.push({ content: 'started' });
  }
  return new ScriptedProvider(script);
}

function agentWith(provider: ScriptedProvider): Agent {
  const agent = createAgent({ workspace: temp('runner-exs-ws-'), sessionsDir: temp('runner-exs-sessions-'), provider, web: false, contextBuilder: false });
  agents.push(agent);
  return agent;
}

function pidsOf(agent: Agent, sessionKey: string): number[] {
  return (agent.execSessions?.list(sessionKey) ?? []).map((info) => info.pid as number);
}

describe('background exec sessions end with their chat', () => {
  it('/stop kills the chat\'s sessions (counted as stopped tasks) and no other chat\'s', { timeout: 60_000 }, async () => {
    const marker = `300.${process.pid % 1000}${Math.floor(Math.random() * 1000)}`;
    const agent = agentWith(sleeper(2, marker));
    expect((await agent.ask('start one', { chatId: 'a' })).reply?.content).toBe('started');
    expect((await agent.ask('start one', { chatId: 'b' })).reply?.content).toBe('started');
    const [a] = pidsOf(agent, 'cli:a');
    const [b] = pidsOf(agent, 'cli:b');
    expect(isGone(a) || isGone(b)).toBe(false);
    expect((await agent.ask('/stop', { chatId: 'a' })).reply?.content).toBe('Stopped 1 task(s).');
    expect(await eventuallyGone(a)).toBe(true);
    expect(isGone(b)).toBe(false);
    // Only chat b's session is left: its bwrap, namespace init, shell and sleep carry the marker too.
    expect(processesWith(marker).length).toBeGreaterThan(0);
    expect(pidsOf(agent, 'cli:a')).toEqual([]);
    expect(pidsOf(agent, 'cli:b')).toEqual([b]);
    await agent.stop();
    expect(await eventuallyGone(b)).toBe(true);
    expect(await eventuallyNoneWith(marker)).toBe(true);
  });

  it('/new kills the chat\'s sessions', { timeout: 60_000 }, async () => {
    const agent = agentWith(sleeper(1));
    await agent.ask('start one');
    const [pid] = pidsOf(agent, 'cli:direct');
    expect(isGone(pid)).toBe(false);
    await agent.ask('/new');
    expect(await eventuallyGone(pid)).toBe(true);
    expect(agent.execSessions?.size).toBe(0);
  });

  it('agent.stop() kills every session of every chat', { timeout: 60_000 }, async () => {
    const agent = agentWith(sleeper(3));
    for (const chatId of ['a', 'b', 'c']) await agent.ask('start one', { chatId });
    const pids = ['a', 'b', 'c'].flatMap((chat) => pidsOf(agent, `cli:${chat}`));
    expect(pids).toHaveLength(3);
    await agent.stop();
    for (const pid of pids) expect(await eventuallyGone(pid)).toBe(true);
    expect(agent.execSessions?.size).toBe(0);
  });

  it('without exec there is no session manager and no session tool', () => {
    const agent = createAgent({ workspace: temp('runner-exs-ws-'), sessionsDir: temp('runner-exs-sessions-'), provider: sleeper(0), exec: false, web: false, contextBuilder: false });
    expect(agent.execSessions).toBeNull();
    expect(agent.tools.has('write_stdin') || agent.tools.has('list_exec_sessions')).toBe(false);
  });
});
