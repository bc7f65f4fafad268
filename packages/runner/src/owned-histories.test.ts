// Issue 31: the runner governs each run's replayed transcript as a history its Governor owns
// (appending what the transcript gained) instead of replaying and governing the whole transcript
// as an array on every request. The same scripted sessions run through both paths
// (`ownedHistories: false` is the path before) must send the provider the same requests and
// report the same governance, across everything that changes a transcript other than an append:
// a session's next run on the previous transcript's rows, a session rebuilt from storage
// (new objects), a session with one earlier row replaced, a compacted session (a dropped prefix), stored failure rows (as written now and
// by earlier versions), failure rows appended mid-run (a failed request continued by injected
// input), retries that govern the transcript plus a prompt (malformed calls, an empty answer,
// the max-iterations summary) and a checkpoint hook that rewrites the live transcript.
import { describe, expect, it } from 'vitest';
import { createGovernor, type Governor, type GovernorHistory, type GovernReport } from '@nanobot/governor';
import { ScriptedProvider, type ScriptedReply } from '@nanobot/providers/testing';
import { ToolRegistry } from '@nanobot/registry';
import { LEGACY_FAILURE_TEXTS, toolFailureRow, turnFailureRow, type Message } from '@nanobot/schema';
import { defineTool } from '@nanobot/tools-core';
import { AgentRunner, type AgentRunResult } from './agent-runner.js';
import type { RunnerEvent } from './runner-events.js';
import type { GovernedRequest } from './runner-ports.js';
import { prng } from './test-support/prng.js';

/** A Governor that counts what it was handed (a GovernorHistory or an array) and delegates. */
function countingGovernor(inner: Governor): { governor: Governor; histories: number; arrays: number } {
  const counts = { histories: 0, arrays: 0 };
  const governor: Governor = {
    govern: (history, options) => {
      if (Array.isArray(history)) counts.arrays++;
      else counts.histories++;
      return inner.govern(history as unknown as GovernorHistory<Message>, options) as never;
    },
    createHistory: (messages) => inner.createHistory(messages),
    observeUsage: (usage) => inner.observeUsage(usage),
    sessionState: (key) => inner.sessionState(key),
    restoreSession: (key, state) => inner.restoreSession(key, state),
    forget: (key) => inner.forget(key),
    get size() {
      return inner.size;
    },
  };
  return Object.assign(counts, { governor });
}

const words = (seed: number, n: number): string => Array.from({ length: n }, (_, i) => `w${(seed * 7 + i * 3) % 97}`).join(' ');

/** A stored conversation with failure rows of both generations, longer than the window. */
function storedHistory(turns: number): Message[] {
  const out: Message[] = [{ role: 'system', content: 'You are nanobot.' }];
  for (let t = 0; t < turns; t++) {
    out.push({ role: 'user', content: `Q${t}: ${words(t, 40)}` });
    switch (t % 5) {
      case 1:
        out.push(turnFailureRow(t % 2 === 0 ? 'interrupted' : 'model_error', 'HTTP 500'));
        break;
      case 2:
        out.push({ role: 'assistant', content: LEGACY_FAILURE_TEXTS.modelError[t % 2] });
        break;
      case 3:
        out.push({ role: 'assistant', content: null, tool_calls: [{ id: `h${t}`, type: 'function', function: { name: 'exec', arguments: '{}' } }] });
        out.push(t % 2 === 0 ? toolFailureRow({ id: `h${t}`, name: 'exec' }) : { role: 'tool', tool_call_id: `h${t}`, name: 'exec', content: LEGACY_FAILURE_TEXTS.toolInterrupted });
        out.push({ role: 'assistant', content: `A${t}: ${words(t + 1, 60)}` });
        break;
      default:
        out.push({ role: 'assistant', content: `A${t}: ${words(t + 1, 80)}` });
    }
  }
  return out;
}

/** The model's step `turn` of run `run` in session `seed`: the same for both runners. */
function step(seed: number, run: number, turn: number): ScriptedReply {
  const r = prng(seed * 1_000 + run * 50 + turn)();
  const id = (j: number): string => `s${seed}r${run}t${turn}c${j}`;
  if (r < 0.5) {
    const calls = r < 0.1 ? 2 : 1;
    return { content: '', toolCalls: Array.from({ length: calls }, (_, j) => ({ id: id(j), name: 'exec', arguments: { size: 20 + ((seed + turn * 13 + j) % 7) * 60 } })), finishReason: 'tool_calls' };
  }
  if (r < 0.58) return { content: 'calling', toolCalls: [{ id: id(0), name: '', arguments: {} }], finishReason: 'tool_calls' };
  if (r < 0.66) return { content: '', finishReason: 'stop' };
  if (r < 0.74) return { error: new Error(`boom ${seed}.${run}.${turn}`) };
  return { content: `answer ${seed}.${run}.${turn}: ${words(turn, 30)}`, finishReason: 'stop' };
}

interface Record {
  requests: unknown[];
  governance: unknown[];
  governed: unknown[];
  results: unknown[];
  rewrites: number;
}

/** Runs one scripted session of `runs` runs on `runner`; returns everything observable. */
async function session(runner: AgentRunner, seed: number, runs: number): Promise<Record> {
  const rec: Record = { requests: [], governance: [], governed: [], results: [], rewrites: 0 };
  const random = prng(seed);
  const sessionKey = seed % 3 === 0 ? undefined : `session-${seed}`;
  const tools = new ToolRegistry();
  tools.register(defineTool({ name: 'exec', description: 'runs', parameters: { type: 'object', properties: { size: { type: 'integer' } } }, execute: (args: { size?: number }) => `out ${words(args.size ?? 1, args.size ?? 1)}` }));
  let previous: AgentRunResult | null = null;
  for (let run = 0; run < runs; run++) {
    const user: Message = { role: 'user', content: `run ${run}: ${words(run + seed, 20)}` };
    let initial: Message[];
    const mode = random();
    if (previous === null) initial = [...storedHistory(20 + (seed % 4) * 5), user];
    else if (mode < 0.6) initial = [...previous.messages, user]; // the same rows: the session's history resumes
    else if (mode < 0.7) initial = structuredClone([...previous.messages, user]); // rebuilt from storage
    else if (mode < 0.8) {
      // The same rows but one earlier row replaced (a message redacted in storage).
      initial = [...previous.messages, user];
      const at = Math.floor(initial.length / 3);
      initial[at] = { ...initial[at], content: initial[at].role === 'assistant' && initial[at].tool_calls ? null : '[redacted]' };
    }
    else initial = [previous.messages[0], ...previous.messages.slice(Math.floor(previous.messages.length / 2)), user]; // compacted
    const model = new ScriptedProvider((_request, turn) => step(seed, run, turn));
    let injected = 0;
    const rewrite = seed % 2 === 1 && run % 2 === 1;
    let rewritten = false;
    const result = await runner.run({
      runId: `run-${seed}-${run}`,
      ...(sessionKey !== undefined ? { sessionKey } : {}),
      initialMessages: initial,
      provider: model,
      tools,
      contextWindowTokens: 3_000,
      maxTokens: 200,
      maxIterations: 5,
      // Input arriving during the run: continues a failed turn, so a failure row is appended mid-run.
      injections: () => (injected++ % 3 === 1 ? [{ role: 'user', content: `meanwhile ${injected}` }] : []),
      // A hook that rewrites the live transcript (read-only by contract): the view must follow it.
      checkpoint: (payload) => {
        if (!rewrite || payload.phase !== 'tools_completed' || rewritten) return;
        rewritten = true;
        rec.rewrites++;
        (payload.transcript as Message[]).splice(Math.floor(payload.transcript.length / 2), 1);
      },
      events: (event: RunnerEvent) => {
        if (event.type === 'governance') rec.governance.push(event);
      },
      onGoverned: (r: GovernedRequest) => rec.governed.push({ ...r, tools: r.tools.map((t) => t.function.name) }),
    });
    rec.requests.push(...model.requests.map((r) => ({ messages: r.messages, tools: (r.tools ?? []).map((t) => t.function.name) })));
    rec.results.push({ messages: result.messages, finalContent: result.finalContent, stopReason: result.stopReason, error: result.error, iterations: result.iterations });
    previous = result;
  }
  return rec;
}

describe('owned histories: the same requests as replaying the whole transcript', () => {
  it('scripted sessions send the same requests, governance and results through both paths', async () => {
    let histories = 0;
    let rewrites = 0;
    const purposes = new Set<unknown>();
    const stops = new Set<unknown>();
    for (let seed = 1; seed <= 24; seed++) {
      const old = countingGovernor(createGovernor());
      const now = countingGovernor(createGovernor());
      const before = await session(new AgentRunner({ governor: old.governor, ownedHistories: false }), seed, 6);
      const after = await session(new AgentRunner({ governor: now.governor }), seed, 6);
      expect(after).toEqual(before);
      expect(old.histories).toBe(0);
      histories += now.histories;
      rewrites += after.rewrites;
      for (const g of after.governed) purposes.add((g as GovernedRequest).purpose);
      for (const r of after.results) stops.add((r as AgentRunResult).stopReason);
      // Over the window: the requests are cut (the cut plan carried from request to request).
      expect(after.governance.some((e) => ((e as { report: GovernReport }).report.cut?.removed ?? 0) > 0)).toBe(true);
    }
    // The scripts reach every request that governs the transcript plus a prompt, and failed turns.
    expect([...purposes].sort()).toEqual(['finalize_empty', 'finalize_max_iterations', 'malformed_retry', 'turn']);
    expect(stops).toContain('error');
    expect(rewrites).toBeGreaterThan(5);
    // The new path did govern histories (not arrays) on most requests.
    expect(histories).toBeGreaterThan(100);
  });

  it("a session's next run on the previous transcript's rows resumes its history; rebuilt rows do not", async () => {
    const inner = createGovernor();
    const created: unknown[] = [];
    const governor: Governor = { ...countingGovernor(inner).governor, createHistory: (messages) => (created.push(messages), inner.createHistory(messages)) };
    const runner = new AgentRunner({ governor });
    const model = (): ScriptedProvider => new ScriptedProvider([{ content: '', toolCalls: [{ id: `c${created.length}`, name: 'exec', arguments: {} }], finishReason: 'tool_calls' }, 'done']);
    const tools = new ToolRegistry();
    tools.register(defineTool({ name: 'exec', description: 'runs', parameters: { type: 'object', properties: {} }, execute: () => 'ok' }));
    const run = (initialMessages: Message[]) => runner.run({ sessionKey: 'k', initialMessages, provider: model(), tools });
    const first = await run(storedHistory(10));
    expect(created).toHaveLength(1);
    const second = await run([...first.messages, { role: 'user', content: 'next' }]);
    expect(created).toHaveLength(1);
    await run(structuredClone([...second.messages, { role: 'user', content: 'again' }]));
    expect(created).toHaveLength(2);
  });
});
