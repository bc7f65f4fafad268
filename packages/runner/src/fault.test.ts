import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Message } from '@nanobot/schema';
import { checkLegality } from '@nanobot/governor';
import { ScriptedProvider } from '@nanobot/providers/testing';
import type { ScriptedReply } from '@nanobot/providers/testing';
import { ToolRegistry } from '@nanobot/registry';
import { JsonlSessionStore } from '@nanobot/session';
import { defineTool, toolResult } from '@nanobot/tools-core';
import { AgentLoop } from './agent-loop.js';
import { AgentRunner } from './agent-runner.js';
import { MessageBus } from './bus/index.js';
import { prng } from './test-support/prng.js';


const ANY = { type: 'object', properties: {}, additionalProperties: true } as const;

/** Tools that misbehave in every way a tool can. The registry's time limit stops the hangers. */
function faultyRegistry(): ToolRegistry {
  const registry = new ToolRegistry({ defaultTimeoutMs: 15 });
  const sleep = (ms: number, signal?: AbortSignal) => new Promise<void>((resolve) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => { clearTimeout(t); resolve(); }, { once: true });
  });
  registry.register(defineTool({ name: 'ok', description: 'ok', parameters: ANY, readOnly: true, execute: async (_a, ctx) => { await sleep(1, ctx.signal); return 'fine'; } }));
  registry.register(defineTool({ name: 'throws', description: 't', parameters: ANY, execute: () => { throw new Error('tool exploded'); } }));
  registry.register(defineTool({ name: 'rejects', description: 'r', parameters: ANY, readOnly: true, execute: async () => Promise.reject(new RangeError('async failure')) }));
  registry.register(defineTool({ name: 'hangs', description: 'h', parameters: ANY, readOnly: true, execute: () => new Promise(() => undefined) }));
  registry.register(defineTool({ name: 'nothing', description: 'n', parameters: ANY, execute: () => undefined }));
  registry.register(defineTool({ name: 'error_result', description: 'e', parameters: ANY, execute: () => toolResult.error('Error: nope') }));
  registry.register(defineTool({ name: 'huge', description: 'big', parameters: ANY, readOnly: true, execute: () => 'x'.repeat(40_000) }));
  registry.register(defineTool({ name: 'throws_string', description: 's', parameters: ANY, execute: () => { throw 'a bare string'; } }));
  return registry;
}

const TOOL_NAMES = ['ok', 'throws', 'rejects', 'hangs', 'nothing', 'error_result', 'huge', 'throws_string', 'missing_tool'];

function randomScript(rand: () => number, run: number): ScriptedReply[] {
  const steps: ScriptedReply[] = [];
  const length = 1 + Math.floor(rand() * 5);
  for (let s = 0; s < length; s += 1) {
    const r = rand();
    if (r < 0.55) {
      const n = 1 + Math.floor(rand() * 3);
      steps.push({
        content: rand() < 0.3 ? 'working on it' : '',
        toolCalls: Array.from({ length: n }, (_, i) => ({
          id: `c${run}_${s}_${i}`,
          name: TOOL_NAMES[Math.floor(rand() * TOOL_NAMES.length)],
          arguments: rand() < 0.1 ? '{broken json' : { n: i },
        })),
      });
    } else if (r < 0.65) {
      steps.push({ content: 'partial answer that gets cut', cutAfter: 1 + Math.floor(rand() * 3) });
    } else if (r < 0.72) {
      steps.push({ error: new Error('upstream failure') });
    } else if (r < 0.8) {
      steps.push({ content: 'too long', finishReason: 'length' });
    } else if (r < 0.85) {
      steps.push({ content: '' });
    } else {
      steps.push({ content: `answer ${run}` });
    }
  }
  return steps;
}

describe('fault injection', () => {
  it('hundreds of runs with failing tools, failing streams and random aborts leave legal transcripts', async () => {
    const seed = 20261130;
    const rand = prng(seed);
    const registry = faultyRegistry();
    const runner = new AgentRunner();
    const stops = new Map<string, number>();
    for (let run = 0; run < 300; run += 1) {
      const provider = new ScriptedProvider(randomScript(rand, run), { whenExhausted: 'repeat-last', deltaDelayMs: rand() < 0.3 ? 1 : 0 });
      const controller = new AbortController();
      const abortAt = rand() < 0.4 ? Math.floor(rand() * 14) : -1;
      let seen = 0;
      const initial: Message[] = [{ role: 'system', content: 'sys' }, { role: 'user', content: `run ${run}` }];
      const result = await runner.run({
        initialMessages: initial,
        provider,
        tools: registry,
        concurrentTools: rand() < 0.5,
        failOnToolError: rand() < 0.2,
        maxIterations: 1 + Math.floor(rand() * 6),
        signal: controller.signal,
        events: (event) => {
          seen += 1;
          if (seen === abortAt && event.type !== 'turn_end') controller.abort();
        },
      });
      stops.set(result.stopReason, (stops.get(result.stopReason) ?? 0) + 1);
      const problems = checkLegality(result.messages);
      if (problems.length > 0) throw new Error(`seed ${seed} run ${run}: ${JSON.stringify(problems)}\n${JSON.stringify(result.messages, null, 1)}`);
      // Every call answered exactly once, in call order, right after its assistant turn.
      for (let i = 0; i < result.messages.length; i += 1) {
        const calls = result.messages[i].tool_calls ?? [];
        calls.forEach((c, k) => expect(result.messages[i + 1 + k]?.tool_call_id).toBe(c.id));
      }
      // The next turn always works on what was left.
      if (run % 25 === 0) {
        const next = await runner.run({
          initialMessages: [...result.messages, { role: 'user', content: 'continue' }],
          provider: new ScriptedProvider(['resumed']),
          tools: registry,
        });
        expect(next.finalContent).toBe('resumed');
      }
    }
    console.info(`fault runs by stop reason: ${JSON.stringify(Object.fromEntries(stops))}`);
    expect(stops.get("aborted") ?? 0).toBeGreaterThan(20);
    expect(stops.get('completed') ?? 0).toBeGreaterThan(20);
    expect(stops.get('error') ?? 0).toBeGreaterThan(5);
  });

  const dirs: string[] = [];
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('persisted sessions stay legal under /stop at random moments across many turns', async () => {
    const seed = 7;
    const rand = prng(seed);
    const dir = mkdtempSync(join(tmpdir(), 'runner-fault-'));
    dirs.push(dir);
    const sessions = new JsonlSessionStore({ dir, fsync: 'never' });
    const bus = new MessageBus();
    let run = 0;
    const provider = new ScriptedProvider(() => randomScript(rand, run++)[0], { deltaDelayMs: 1 });
    const loop = new AgentLoop({ bus, provider, tools: faultyRegistry(), sessions, maxIterations: 4, maxConcurrentSessions: 4 });
    const turns: Promise<unknown>[] = [];
    for (let i = 0; i < 120; i += 1) {
      const chatId = `c${i % 8}`;
      turns.push(loop.submit({ channel: 'test', senderId: 'u', chatId, content: `message ${i}` }));
      if (rand() < 0.3) {
        await new Promise((r) => setTimeout(r, Math.floor(rand() * 4)));
        loop.dispatch({ channel: 'test', senderId: 'u', chatId, content: '/stop' });
      }
    }
    await Promise.all(turns);
    await loop.stop();
    const fresh = new JsonlSessionStore({ dir });
    const keys = await fresh.list();
    expect(keys).toHaveLength(8);
    let total = 0;
    for (const key of keys) {
      const { session, warnings } = await fresh.load(key);
      expect(warnings).toEqual([]);
      total += session.messages.filter((m) => m.role === 'user' && !m._command).length;
      const problems = checkLegality(session.messages);
      if (problems.length > 0) throw new Error(`seed ${seed} ${key}: ${JSON.stringify(problems)}`);
    }
    expect(total).toBeGreaterThan(60);
  });
});
