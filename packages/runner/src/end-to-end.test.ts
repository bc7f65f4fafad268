import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkLegality, govern } from '@nanobot/governor';
import { TOOL_INTERRUPTED_NOTE } from '@nanobot/schema';
import { ScriptedProvider } from '@nanobot/providers/testing';
import { JsonlSessionStore, TOKEN_PROBE_MESSAGE } from '@nanobot/session';
import { createAgent } from './create-agent.js';
import type { LoopContextBuilder } from './agent-loop.js';
import type { RunnerEvent } from './runner-events.js';
import type { MessageBus } from './bus/index.js';
import type { GovernedRequest } from './runner-ports.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function temp(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
}

describe('end to end with the built-in tools', () => {
  it('reads, edits, runs a command and answers; the persisted session reloads legal', async () => {
    const workspace = temp('runner-ws-');
    const sessionsDir = temp('runner-sessions-');
    writeFileSync(join(workspace, 'notes.txt'), 'status: TODO\n');
    const provider = new ScriptedProvider([
      { content: 'Reading the notes.', toolCalls: [{ id: 'r1', name: 'read_file', arguments: { path: 'notes.txt' } }] },
      (request) => {
        const read = request.messages.find((m) => m.role === 'tool' && m.tool_call_id === 'r1');
        expect(String(read?.content)).toContain('status: TODO');
        return { toolCalls: [{ id: 'e1', name: 'edit_file', arguments: { path: 'notes.txt', old_text: 'TODO', new_text: 'DONE' } }] };
      },
      { toolCalls: [{ id: 'x1', name: 'exec', arguments: { command: 'cat notes.txt' } }] },
      (request) => {
        const out = String(request.messages.find((m) => m.tool_call_id === 'x1')?.content);
        expect(out).toContain('status: DONE');
        return { content: 'The notes now say DONE.' };
      },
    ]);
    const events: RunnerEvent[] = [];
    const agent = createAgent({ workspace, provider, sessionsDir, web: false, events: (e) => void events.push(e) });
    expect(agent.tools.names().sort()).toEqual(['apply_patch', 'edit_file', 'exec', 'find_files', 'grep', 'list_dir', 'list_exec_sessions', 'message', 'read_file', 'spawn', 'write_file', 'write_stdin']);
    expect(agent.subagentTools.has('message') || agent.subagentTools.has('spawn')).toBe(false);
    const outcome = await agent.ask('Mark the notes as done and show me.');
    await agent.stop();
    expect(outcome.reply?.content).toBe('The notes now say DONE.');
    expect(outcome.result?.toolsUsed).toEqual(['read_file', 'edit_file', 'exec']);
    expect(readFileSync(join(workspace, 'notes.txt'), 'utf8')).toBe('status: DONE\n');
    expect(provider.remaining).toBe(0);
    expect(events.filter((e) => e.type === 'governance')).toHaveLength(4);
    // A fresh store on the same directory: what a restarted process sees.
    const { session, warnings } = await new JsonlSessionStore({ dir: sessionsDir }).load('cli:direct');
    expect(warnings).toEqual([]);
    expect(session.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'tool', 'assistant', 'tool', 'assistant']);
    expect(checkLegality(session.messages)).toEqual([]);
    const system = provider.requests[0].messages[0];
    expect(system.role).toBe('system');
  });

  it('an agent learns its usage calibration by default: the calibrator it exposes is fed by every request, and false turns it off', async () => {
    // The provider bills 1.3× the governor's estimate of the request (seen by onGoverned, just before).
    let estimate = 0;
    const onGoverned = (request: GovernedRequest): void => {
      estimate = (request.report as { tokensAfter: number }).tokensAfter;
    };
    const provider = new ScriptedProvider([() => ({ content: 'one', usage: { inputTokens: Math.round(1.3 * estimate), outputTokens: 5 } }), () => ({ content: 'two', usage: { inputTokens: Math.round(1.3 * estimate), outputTokens: 5 } })]);
    const events: RunnerEvent[] = [];
    const agent = createAgent({ workspace: temp('runner-ws-'), provider, sessionsDir: temp('runner-sessions-'), web: false, exec: false, contextBuilder: false, contextWindowTokens: 32_000, maxTokens: 500, compact: false, onGoverned, events: (e) => void events.push(e) });
    expect(agent.calibrator).not.toBeNull();
    await agent.ask('first');
    await agent.ask('second');
    await agent.stop();
    const ends = events.filter((e): e is Extract<RunnerEvent, { type: 'model_end' }> => e.type === 'model_end');
    expect(ends.map((e) => e.tokensActual)).toEqual(ends.map((e) => Math.round(1.3 * e.tokensEstimated!)));
    const ratio = ends[0].tokensActual! / ends[0].tokensEstimated!;
    expect(agent.calibrator!.ratio('scripted-model')).toBeCloseTo(Math.max(ratio, ends[1].tokensActual! / ends[1].tokensEstimated!) * 1.02, 10);
    expect(ends[1].tokensCalibrated).toBe(Math.ceil(ends[1].tokensEstimated! * ratio * 1.02));
    const off = createAgent({ workspace: temp('runner-ws-'), provider: new ScriptedProvider([]), sessionsDir: temp('runner-sessions-'), web: false, exec: false, calibrator: false });
    expect(off.calibrator).toBeNull();
    await off.stop();
  });

  it('a historical call without a result is backfilled in the request; the session keeps only old + new (reference test 10)', async () => {
    const workspace = temp('runner-ws-');
    const sessionsDir = temp('runner-sessions-');
    const store = new JsonlSessionStore({ dir: sessionsDir });
    const { session } = await store.load('cli:direct');
    session.messages.push(
      { role: 'user', content: 'earlier' },
      { role: 'assistant', content: '', tool_calls: [{ id: 'old', type: 'function', function: { name: 'read_file', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'old', name: 'read_file', content: 'r' },
      { role: 'assistant', content: 'earlier answer' },
      { role: 'assistant', content: '', tool_calls: [{ id: 'lost', type: 'function', function: { name: 'read_file', arguments: '{}' } }] },
      { role: 'assistant', content: 'after a crash' },
    );
    await store.save(session);
    const before = session.messages.length;
    const provider = new ScriptedProvider([
      (request) => {
        const backfill = request.messages.find((m) => m.role === 'tool' && m.tool_call_id === 'lost');
        expect(backfill).toBeDefined();
        return 'new answer';
      },
    ]);
    const agent = createAgent({ workspace, provider, sessionsDir, web: false, exec: false, contextBuilder: false });
    await agent.ask('new question');
    await agent.stop();
    const reloaded = (await new JsonlSessionStore({ dir: sessionsDir }).load('cli:direct')).session.messages;
    expect(reloaded.slice(before).map((m) => [m.role, m.content])).toEqual([
      ['user', 'new question'],
      ['assistant', 'new answer'],
    ]);
  });

  it('with a context window, old turns are consolidated before BUILD and the summary reaches the system prompt', async () => {
    const workspace = temp('runner-ws-');
    const sessionsDir = temp('runner-sessions-');
    const store = new JsonlSessionStore({ dir: sessionsDir });
    const { session } = await store.load('cli:direct');
    for (let i = 0; i < 60; i += 1) {
      session.messages.push({ role: 'user', content: `question ${i}: ${'details '.repeat(60)}` }, { role: 'assistant', content: `answer ${i}: ${'words '.repeat(60)}` });
    }
    await store.save(session);
    let summaries = 0;
    const provider = new ScriptedProvider((request) => {
      if (request.toolChoice === 'none') {
        summaries += 1;
        return '- [durable] The user asked many detailed questions.';
      }
      const system = String(request.messages[0].content);
      expect(system).toContain('The user asked many detailed questions.');
      return 'caught up';
    });
    const agent = createAgent({ workspace, provider, sessionsDir, web: false, exec: false, contextWindowTokens: 12000, maxTokens: 500 });
    const outcome = await agent.ask('where were we?');
    await agent.stop();
    expect(summaries).toBeGreaterThan(0);
    expect(outcome.reply?.content).toBe('caught up');
    const reloaded = (await new JsonlSessionStore({ dir: sessionsDir }).load('cli:direct')).session;
    expect(reloaded.lastConsolidated).toBeGreaterThan(0);
    expect(readFileSync(join(workspace, 'memory', 'history.jsonl'), 'utf8')).toContain('many detailed questions');
  });

  it("the consolidator's token probe counts the agent's system prompt, not the bare history", async () => {
    const workspace = temp('runner-ws-');
    const sessionsDir = temp('runner-sessions-');
    const store = new JsonlSessionStore({ dir: sessionsDir });
    const { session } = await store.load('cli:direct');
    for (let i = 0; i < 58; i += 1) {
      session.messages.push({ role: 'user', content: `question ${i}: ${'details '.repeat(60)}` }, { role: 'assistant', content: `answer ${i}: ${'words '.repeat(60)}` });
    }
    await store.save(session);
    // History and tools alone stay under the budget; only with this system prompt does the probe reach it.
    const bigPrompt = `You are a test agent. ${'Workspace rules and memory. '.repeat(250)}`;
    const probes: string[] = [];
    const contextBuilder: LoopContextBuilder = {
      buildMessages: async (history, current) => {
        probes.push(current);
        return [{ role: 'system', content: bigPrompt }, ...history, { role: 'user', content: current }];
      },
    };
    let summaries = 0;
    const provider = new ScriptedProvider((request) => {
      if (request.toolChoice === 'none') {
        summaries += 1;
        return '- The user asked many detailed questions.';
      }
      return 'ok';
    });
    const agent = createAgent({ workspace, provider, sessionsDir, web: false, exec: false, contextBuilder, contextWindowTokens: 12000, maxTokens: 500 });
    await agent.ask('next');
    await agent.stop();
    expect(probes).toContain(TOKEN_PROBE_MESSAGE);
    expect(summaries).toBe(1);
    expect((await new JsonlSessionStore({ dir: sessionsDir }).load('cli:direct')).session.lastConsolidated).toBeGreaterThan(0);
    expect(readFileSync(join(workspace, 'memory', 'history.jsonl'), 'utf8')).toContain('many detailed questions');
  });

  it("without maxTokens the consolidator reserves what the loop's governor reserves (window-scaled), not a fixed 4,096", async () => {
    // 8k window, a model the table does not know: the governor keeps 1,024 tokens for the reply,
    // so its budget is 5,952 — the consolidator must not start summarising at 2,880.
    const run = async (maxTokens: number | undefined): Promise<{ consolidated: number; reserve: unknown }> => {
      const workspace = temp('runner-ws-');
      const sessionsDir = temp('runner-sessions-');
      const store = new JsonlSessionStore({ dir: sessionsDir });
      const { session } = await store.load('cli:direct');
      for (let i = 0; i < 22; i += 1) {
        session.messages.push({ role: 'user', content: `question ${i}: ${'details '.repeat(60)}` }, { role: 'assistant', content: `answer ${i}: ${'words '.repeat(60)}` });
      }
      await store.save(session);
      let reserve: unknown;
      const provider = new ScriptedProvider((request) => (request.toolChoice === 'none' ? '- The user asked many detailed questions.' : 'ok'));
      const contextBuilder: LoopContextBuilder = { buildMessages: async (history, current) => [{ role: 'system', content: 'You are a test agent.' }, ...history, { role: 'user', content: current }] };
      const agent = createAgent({
        workspace, provider, sessionsDir, web: false, exec: false, contextBuilder, contextWindowTokens: 8000,
        ...(maxTokens !== undefined ? { maxTokens } : {}),
        onGoverned: ({ report }) => { reserve = (report as { replyReserve?: unknown }).replyReserve; },
      });
      await agent.ask('next');
      await agent.stop();
      return { consolidated: (await new JsonlSessionStore({ dir: sessionsDir }).load('cli:direct')).session.lastConsolidated, reserve };
    };
    const scaled = await run(undefined);
    expect(scaled.reserve).toEqual({ tokens: 1024, source: 'window' });
    expect(scaled.consolidated).toBe(0);
    // The same session with the old fixed reserve is over the consolidator's budget.
    const fixed = await run(4096);
    expect(fixed.reserve).toEqual({ tokens: 4096, source: 'maxOutputTokens' });
    expect(fixed.consolidated).toBeGreaterThan(0);
  });

  it('govern and onGoverned reach every request of the agent: apps observe the full governed request', async () => {
    const workspace = temp('runner-ws-');
    const provider = new ScriptedProvider([
      { toolCalls: [{ id: 'l1', name: 'list_dir', arguments: { path: '.' } }] },
      { content: 'listed' },
    ]);
    let governCalls = 0;
    const seen: GovernedRequest[] = [];
    const events: RunnerEvent[] = [];
    const agent = createAgent({
      workspace,
      provider,
      sessionsDir: temp('runner-sessions-'),
      web: false,
      exec: false,
      govern: (messages, options) => {
        governCalls += 1;
        return govern(messages, options);
      },
      onGoverned: (request) => void seen.push(request),
      events: (e) => void events.push(e),
    });
    const outcome = await agent.ask('what is here?', { chatId: 'c7' });
    await agent.stop();
    expect(outcome.reply?.content).toBe('listed');
    expect(governCalls).toBe(2);
    expect(seen.map((r) => [r.sessionKey, r.purpose, r.iteration])).toEqual([['cli:c7', 'turn', 0], ['cli:c7', 'turn', 1]]);
    expect(seen[0].messages[0].role).toBe('system');
    expect(seen[1].messages.map((m) => m.role).slice(-3)).toEqual(['user', 'assistant', 'tool']);
    expect(seen[1].tools.map((t) => t.function.name)).toContain('list_dir');
    expect(seen.map((r) => r.report)).toEqual(events.filter((e) => e.type === 'governance').map((e) => (e as { report: unknown }).report));
  });

  it('the real tools raise typed boundary errors: workspace refusals escalate, SSRF gets its note', async () => {
    const workspace = temp('runner-ws-');
    const sessionsDir = temp('runner-sessions-');
    const provider = new ScriptedProvider([
      { toolCalls: [{ id: 'a', name: 'read_file', arguments: { path: '/etc/passwd' } }] },
      { toolCalls: [{ id: 'b', name: 'read_file', arguments: { path: '../../../../etc/passwd' } }] }, // repo-checks: outside path on purpose (a traversal probe the workspace guard refuses)
      { toolCalls: [{ id: 'c', name: 'read_file', arguments: { path: '/etc/passwd' } }] },
      { toolCalls: [{ id: 'd', name: 'web_fetch', arguments: { url: 'http://127.0.0.1:9/secret' } }] },
      'I cannot access those.',
    ]);
    const agent = createAgent({ workspace, provider, sessionsDir, exec: false, subagents: false });
    const { result } = await agent.ask('read /etc/passwd and my router page');
    await agent.stop();
    expect(result?.stopReason).toBe('completed');
    const details = result!.toolEvents.map((e) => e.detail.split(':')[0]);
    expect(details).toEqual(['workspace_violation', 'workspace_violation', 'workspace_violation_escalated', 'ssrf_violation']);
    const byId = (id: string) => String(result!.messages.find((m) => m.tool_call_id === id)?.content);
    expect(byId('c')).toContain('Error: refusing repeated workspace-bypass attempts.');
    expect(byId('d')).toContain('tools.ssrfWhitelist');
  });

  it('abort() mid-turn (Ctrl-C) settles ask, saves a legal session, and the next ask works', async () => {
    const workspace = temp('runner-ws-');
    const sessionsDir = temp('runner-sessions-');
    const provider = new ScriptedProvider(
      [{ toolCalls: [{ id: 's1', name: 'exec', arguments: { command: 'sleep 5' } }] }, 'fresh answer'],
    );
    const events: RunnerEvent[] = [];
    const agent = createAgent({ workspace, provider, sessionsDir, web: false, events: (e) => {
      events.push(e);
      if (e.type === 'tool_start') setTimeout(() => agent.abort(), 20);
    } });
    const first = await agent.ask('sleep please');
    expect(first.result?.stopReason).toBe('aborted');
    expect(first.reply).toBeNull();
    const second = await agent.ask('are you there?');
    expect(second.reply?.content).toBe('fresh answer');
    await agent.stop();
    const { session } = await new JsonlSessionStore({ dir: sessionsDir }).load('cli:direct');
    expect(checkLegality(session.messages)).toEqual([]);
    expect(session.messages.find((m) => m.tool_call_id === 's1')).toMatchObject({ content: TOOL_INTERRUPTED_NOTE, _failure: { kind: 'interrupted' } });
  });
});

describe('background subagents and message-tool replies through ask()', () => {
  const textOf = (content: unknown): string => (typeof content === 'string' ? content : JSON.stringify(content));

  it('a background spawn delivers its result to the origin session without start()', async () => {
    const workspace = temp('runner-ws-');
    const sessionsDir = temp('runner-sessions-');
    const provider = new ScriptedProvider((request) => {
      const last = request.messages[request.messages.length - 1];
      const lastText = textOf(last.content);
      if (request.messages.some((m) => m.role === 'user' && textOf(m.content).startsWith('count the files'))) return 'there are 3 files';
      if (lastText.includes('there are 3 files')) return 'Background result: there are 3 files.';
      if (last.role === 'tool') return 'Started it in the background.';
      return { toolCalls: [{ id: 's1', name: 'spawn', arguments: { task: 'count the files' } }] };
    });
    const agent = createAgent({ workspace, provider, sessionsDir, web: false, exec: false, contextBuilder: false });
    const outcome = await agent.ask('count in the background');
    // The result may land while the turn still runs (it is injected) or after it (a new turn).
    expect(outcome.reply).not.toBeNull();
    await agent.subagents!.idle();
    await agent.loop.idle();
    const outs = [outcome.reply?.content, ...(agent.bus as MessageBus).drainOutbound().map((m) => m.content)];
    expect(outs).toContain('Background result: there are 3 files.');
    await agent.stop();
    const stored = (await new JsonlSessionStore({ dir: sessionsDir }).load('cli:direct')).session.messages;
    expect(stored.some((m) => textOf(m.content).includes('there are 3 files'))).toBe(true);
    expect(stored.at(-1)).toMatchObject({ role: 'assistant', content: 'Background result: there are 3 files.' });
    expect(checkLegality(stored)).toEqual([]);
  });

  it('ask() returns what the message tool delivered to the same chat as the reply', async () => {
    const workspace = temp('runner-ws-');
    const sessionsDir = temp('runner-sessions-');
    const provider = new ScriptedProvider([
      { toolCalls: [{ id: 'm1', name: 'message', arguments: { content: 'Here is your answer, delivered.' } }] },
      { content: 'done' },
    ]);
    const agent = createAgent({ workspace, provider, sessionsDir, web: false, exec: false, contextBuilder: false });
    const outcome = await agent.ask('answer me through the message tool');
    await agent.stop();
    expect(outcome.reply).toMatchObject({ content: 'Here is your answer, delivered.', event: 'message_tool', channel: 'cli', chatId: 'direct' });
    // Published once: the loop's own reply ("done") is suppressed, as the reference does.
    expect((agent.bus as MessageBus).drainOutbound().map((m) => m.content)).toEqual(['Here is your answer, delivered.']);
  });
});
