// Replays each of the 16 recorded sessions through AgentRunner: every user turn is sent as a
// run, a ScriptedProvider answers with the recorded assistant turns, the tools return the
// recorded results, and the session is persisted with JsonlSessionStore after every run. Then
// the stored session is reloaded from disk and governed at 8k/32k/128k/200k windows and without
// one: every copy must be a legal request, for OpenAI (strict roles) and, through the provider's
// own conversion, for the Anthropic wire rules.
//
// Where the recording cannot be replayed verbatim the runner's behaviour is kept (and counted):
// an aborted or failed turn (assistant with no text and no calls) is replayed as a model error,
// so the runner records its error placeholder; a call the recording never answered gets a
// "no result recorded" result; when the runner asks for more than the recording holds (after a
// turn that ended on unanswered calls) the model says so in one line; ids the model reused are
// renamed by the runner before they are stored. REPLAY_STATS=1 prints per-file replay counts.
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { LLMRequest, Message, MessageContent } from '@nanobot/schema';
import { checkLegality, enforceRoleAlternation, govern } from '@nanobot/governor';
import { toAnthropicMessages } from '@nanobot/providers/anthropic';
import { ScriptedProvider, type ScriptedReply } from '@nanobot/providers/testing';
import { ToolRegistry } from '@nanobot/registry';
import { JsonlSessionStore } from '@nanobot/session';
import { defineTool } from '@nanobot/tools-core';
import { AgentRunner } from '@nanobot/runner';
import { anthropicWireViolations } from './anthropic-wire-rules.js';

const dir = join(process.env.NANOBOT_FIXTURES_DIR!, 'transcripts');
const files = readdirSync(dir).filter((f) => f.endsWith('.json') && f !== 'MANIFEST.json').sort();
const sessionsDir = mkdtempSync(join(tmpdir(), 'replay-sessions-'));
afterAll(() => rmSync(sessionsDir, { recursive: true, force: true }));

const WINDOW = 200_000;
const MAX_TOKENS = 8_192;
const NO_RESULT = '(no result was recorded for this call)';
const NOTHING_MORE = '(replay: the recording has no further reply in this turn)';
const GOVERN_AT: [string, number | null][] = [['8k', 8_000], ['32k', 32_000], ['128k', 128_000], ['200k', 200_000], ['none', null]];

interface Turn {
  /** The user messages that open the turn (several when the recording has consecutive ones). */
  users: Message[];
  /** The recorded assistant messages of the turn, each with the results recorded for its calls. */
  replies: { assistant: Message; results: (MessageContent | null)[] }[];
}

function splitTurns(messages: readonly Message[]): { system: Message[]; turns: Turn[] } {
  const system: Message[] = [];
  const turns: Turn[] = [];
  let i = 0;
  while (i < messages.length && messages[i].role === 'system') system.push(messages[i++]);
  while (i < messages.length) {
    const turn: Turn = { users: [], replies: [] };
    while (i < messages.length && messages[i].role === 'user') turn.users.push(messages[i++]);
    while (i < messages.length && messages[i].role !== 'user') {
      const m = messages[i++];
      if (m.role !== 'assistant') continue; // results are taken with their assistant turn below
      const run: Message[] = [];
      for (let j = i; j < messages.length && messages[j].role === 'tool'; j++) run.push(messages[j]);
      const used = new Set<Message>();
      const results = (m.tool_calls ?? []).map((c) => {
        const r = run.find((x) => !used.has(x) && x.tool_call_id === c.id);
        if (r === undefined) return null;
        used.add(r);
        return r.content ?? '';
      });
      turn.replies.push({ assistant: m, results });
    }
    turns.push(turn);
  }
  return { system, turns };
}

function text(content: MessageContent | null | undefined): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((p) => (p.type === 'text' ? p.text : '')).filter(Boolean).join('\n\n');
}

function toReply(assistant: Message): ScriptedReply {
  const calls = assistant.tool_calls ?? [];
  const words = text(assistant.content);
  const reasoning = typeof assistant.reasoning_content === 'string' ? assistant.reasoning_content : undefined;
  if (calls.length > 0) {
    return { content: words || null, reasoning, toolCalls: calls.map((c) => ({ id: c.id, name: c.function.name, arguments: c.function.arguments })) };
  }
  // An aborted or failed turn was recorded as an assistant with nothing to say.
  if (words.trim() === '') return { content: null, finishReason: 'error' };
  return { content: words, reasoning };
}

interface ReplayStats {
  runs: number;
  requests: number;
  modelErrors: number;
  unrecordedResults: number;
  extraReplies: number;
}

async function replay(file: string): Promise<{ recorded: Message[]; stored: Message[]; requests: LLMRequest[]; stats: ReplayStats }> {
  const recorded = JSON.parse(readFileSync(join(dir, file), 'utf8')) as Message[];
  const { system, turns } = splitTurns(recorded);
  const stats: ReplayStats = { runs: 0, requests: 0, modelErrors: 0, unrecordedResults: 0, extraReplies: 0 };

  // Results the tools hand back, in call order (tools run one at a time in a run).
  const pending: (MessageContent | null)[] = [];
  const tools = new ToolRegistry();
  const names = new Set(recorded.flatMap((m) => (m.tool_calls ?? []).map((c) => c.function.name)));
  for (const name of names) {
    tools.register(
      defineTool({
        name,
        description: `replays the recorded ${name} results`,
        parameters: { type: 'object', properties: {} },
        execute: () => {
          const next = pending.shift();
          if (next === undefined || next === null) {
            stats.unrecordedResults++;
            return NO_RESULT;
          }
          return next;
        },
      }),
    );
  }

  const store = new JsonlSessionStore({ dir: sessionsDir, fsync: 'never' });
  const key = `replay:${file.replace(/\.json$/, '')}`;
  const { session } = await store.load(key);
  const requests: LLMRequest[] = [];
  const runner = new AgentRunner();

  for (const turn of turns) {
    let cursor = 0;
    let users = turn.users;
    // A turn whose recording goes on after a final answer (no user in between) needs more runs.
    do {
      const provider = new ScriptedProvider((request) => {
        // The runner may hand over its live transcript (govern returns its input when nothing
        // changed) and append to it later: keep the list as it was sent.
        requests.push({ ...request, messages: request.messages.slice() });
        const reply = turn.replies[cursor++];
        if (reply === undefined) {
          stats.extraReplies++;
          return NOTHING_MORE;
        }
        pending.length = 0;
        pending.push(...reply.results);
        const scripted = toReply(reply.assistant);
        if (scripted.finishReason === 'error') stats.modelErrors++;
        return scripted;
      });
      const initialMessages = [...system, ...session.messages, ...users];
      const result = await runner.run({ initialMessages, provider, tools, contextWindowTokens: WINDOW, maxTokens: MAX_TOKENS, maxIterations: 10_000, stream: false });
      stats.runs++;
      session.messages.push(...users, ...result.messages.slice(result.appendedFrom));
      await store.save(session);
      users = [];
    } while (cursor < turn.replies.length);
  }
  stats.requests = requests.length;

  // Reload with a fresh store, as a restarted process would.
  const reloaded = await new JsonlSessionStore({ dir: sessionsDir }).load(key);
  expect(reloaded.warnings).toEqual([]);
  expect(reloaded.created).toBe(false);
  expect(reloaded.session.messages).toEqual(session.messages);
  return { recorded, stored: [...system, ...reloaded.session.messages], requests, stats };
}

describe('the 16 recorded sessions replayed through AgentRunner, persisted, reloaded and governed', () => {
  it('has the 16 transcripts', () => {
    expect(files).toHaveLength(16);
  });

  it.each(files)('%s', { timeout: 240_000 }, async (file) => {
    const { recorded, stored, requests, stats } = await replay(file);

    // Every request the runner sent was legal and within the window's input budget.
    const budget = WINDOW - MAX_TOKENS - 1024;
    requests.forEach((request, k) => {
      expect(checkLegality(request.messages, { budget, tools: request.tools ?? null }), `request ${k}`).toEqual([]);
    });

    // The stored session holds every recorded user turn, in order, and every recorded call.
    const userText = (list: readonly Message[]) => list.filter((m) => m.role === 'user').map((m) => JSON.stringify(m.content));
    expect(userText(stored)).toEqual(userText(recorded));
    const callNames = (list: readonly Message[]) => list.flatMap((m) => (m.role === 'assistant' ? (m.tool_calls ?? []).map((c) => c.function.name) : []));
    expect(callNames(stored)).toEqual(callNames(recorded));
    // The runner answers every call it made, so the stored session itself is legal.
    expect(checkLegality(stored)).toEqual([]);

    // Governed from disk at every budget: legal for OpenAI and on the Anthropic wire.
    for (const [label, tokens] of GOVERN_AT) {
      const options = tokens === null ? {} : { contextWindowTokens: tokens, contextBlockLimit: tokens };
      const { messages } = govern(stored, options);
      const request = enforceRoleAlternation(messages);
      expect(checkLegality(request, { request: true }), `${label}`).toEqual([]);
      expect(anthropicWireViolations(toAnthropicMessages(request).messages), `${label}`).toEqual([]);
    }

    // The replay itself: one request per recorded reply, plus one per extra reply the runner asked for.
    const replies = recorded.filter((m) => m.role === 'assistant').length;
    expect(stats.requests).toBe(replies + stats.extraReplies);
    // Each call the recording never answered got the "no result recorded" result, and only those.
    const manifest = JSON.parse(readFileSync(join(dir, 'MANIFEST.json'), 'utf8')) as { transcripts: Record<string, { stats: { defect_counts: Record<string, number> } }> };
    expect(stats.unrecordedResults).toBe(manifest.transcripts[file].stats.defect_counts.missing_tool_result ?? 0);
    if (process.env.REPLAY_STATS) console.log(JSON.stringify({ file, ...stats }));
    expect(stats.modelErrors).toBe(recorded.filter((m) => m.role === 'assistant' && !(m.tool_calls ?? []).length && text(m.content).trim() === '').length);
  });
});
