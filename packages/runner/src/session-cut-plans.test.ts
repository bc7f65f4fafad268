import { describe, expect, it } from 'vitest';
import type { Message } from '@nanobot/schema';
import { ToolRegistry } from '@nanobot/registry';
import { ScriptedProvider } from '@nanobot/providers/testing';
import type { GovernReport } from '@nanobot/governor';
import { AgentRunner } from './agent-runner.js';
import { createGovernor } from '@nanobot/governor';
import type { GovernedRequest } from './runner-ports.js';

const words = (seed: number, n: number) => Array.from({ length: n }, (_, i) => `w${(seed * 7 + i * 3) % 97}`).join(' ');

/** A long stored conversation: far more than a 3000-token window holds. */
function history(turns: number): Message[] {
  const out: Message[] = [{ role: 'system', content: 'You are nanobot.' }];
  for (let t = 0; t < turns; t++) out.push({ role: 'user', content: `Q${t}: ${words(t, 60)}` }, { role: 'assistant', content: `A${t}: ${words(t + 1, 120)}` });
  return out;
}

describe('cut plans across the turns of a session', () => {
  it('the next turn of a session re-applies the previous cut; another session does not see it', async () => {
    const runner = new AgentRunner();
    const seen: GovernedRequest[] = [];
    const turn = async (sessionKey: string, initialMessages: Message[]) =>
      runner.run({
        initialMessages, sessionKey, provider: new ScriptedProvider(['ok']), tools: new ToolRegistry(),
        contextWindowTokens: 3000, maxTokens: 200, onGoverned: (r) => seen.push(r),
      });
    const first = await turn('chat:1', [...history(30), { role: 'user', content: 'first?' }]);
    const cut1 = (seen[0].report as GovernReport).cut!;
    expect(cut1.removed).toBeGreaterThan(0);
    expect(cut1.reused).toBe(false);
    // The next turn, as a session store would rebuild it: new objects, one exchange longer.
    const next = structuredClone([...first.messages, { role: 'user', content: 'second?' }]) as Message[];
    await turn('chat:1', next);
    const cut2 = (seen[1].report as GovernReport).cut!;
    expect(cut2).toEqual({ ...cut1, reused: true });
    expect(seen[1].messages.slice(0, seen[0].messages.length)).toEqual(seen[0].messages);
    // Same history under another session key: a fresh cut.
    await turn('chat:2', structuredClone(next));
    expect((seen[2].report as GovernReport).cut!.reused).toBe(false);
  });

  it('passes the plan to a custom governor and keeps what it returns', async () => {
    const runner = new AgentRunner();
    const plans: unknown[] = [];
    const plan = { version: 1 as const, start: 3, anchor: 3, fingerprint: 'a:b' };
    const run = () => runner.run({
      initialMessages: [{ role: 'user', content: 'hi' }], sessionKey: 's', provider: new ScriptedProvider(['ok']), tools: new ToolRegistry(),
      govern: (messages, options) => {
        plans.push(options.cutPlan);
        return { messages, report: {}, cutPlan: plan };
      },
    });
    await run();
    await run();
    expect(plans).toEqual([null, plan]);
  });
});

describe("the agent's Governor carries the plans", () => {
  it('keeps each session under its key (bounded, forgettable) and shares one Governor when given', async () => {
    const governor = createGovernor({ maxConversations: 2 });
    const runner = new AgentRunner({ governor });
    expect(runner.governor).toBe(governor);
    const turn = (sessionKey: string) =>
      runner.run({ initialMessages: [...history(30), { role: 'user', content: 'now?' }], sessionKey, provider: new ScriptedProvider(['ok']), tools: new ToolRegistry(), contextWindowTokens: 3000, maxTokens: 200 });
    await turn('a');
    expect(governor.sessionState('a')?.cutPlan?.start).toBeGreaterThan(0);
    await turn('b');
    await turn('c');
    // Bounded: the least recently used session is forgotten (it would only cost a fresh cut).
    expect(governor.sessionState('a')).toBeUndefined();
    expect(governor.forget('c')).toBe(true);
    expect(governor.sessionState('c')).toBeUndefined();
  });

  it('a run without a session key carries its own plan: a later run with the same opening cuts afresh', async () => {
    const runner = new AgentRunner();
    const seen: GovernedRequest[] = [];
    const initialMessages = [...history(30), { role: 'user', content: 'first?' }];
    const run = (messages: Message[]) =>
      runner.run({ initialMessages: messages, provider: new ScriptedProvider(['ok']), tools: new ToolRegistry(), contextWindowTokens: 3000, maxTokens: 200, onGoverned: (r) => seen.push(r) });
    const first = await run(initialMessages);
    await run([...first.messages, { role: 'user', content: 'second?' }]);
    expect((seen[0].report as GovernReport).cut!.removed).toBeGreaterThan(0);
    expect((seen[1].report as GovernReport).cut!.reused).toBe(false);
  });
});
