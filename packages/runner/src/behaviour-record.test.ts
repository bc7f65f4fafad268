// The runner's outputs, recorded before the runner was reshaped (issue 31: one Governor per agent,
// settings declared once, the turn as request → classify → apply) and compared after: what the
// provider received (the governed requests on the wire), every event and the transcript of the
// recorded-session replays, the fault scripts and one scenario per recovery rule. A refactor
// that changes any of them fails here. Re-record only on purpose:
// `NANOBOT_RECORD=1 npx vitest run src/behaviour-record.test.ts` (and say why in the commit);
// `NANOBOT_RECORD_DUMP=<dir>` writes each scenario's full outputs there, to diff two versions.
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createUsageCalibrator } from '@nanobot/governor';
import type { LLMProvider, LLMRequest, Message } from '@nanobot/schema';
import { ScriptedProvider } from '@nanobot/providers/testing';
import type { ScriptedReply, ScriptStep } from '@nanobot/providers/testing';
import { ToolRegistry } from '@nanobot/registry';
import { JsonlSessionStore } from '@nanobot/session';
import { defineTool, toolResult } from '@nanobot/tools-core';
import { AgentLoop } from './agent-loop.js';
import { AgentRunner } from './agent-runner.js';
import type { AgentRunSpec } from './agent-runner.js';
import { MessageBus } from './bus/index.js';
import type { RunnerEvent } from './runner-events.js';
import { prng } from './test-support/prng.js';

// The runner draws fresh call ids (a reused id) and run ids at random; their digits change token
// counts, so each scenario draws the same ones.
let drawn = 0;
vi.mock('node:crypto', async (original) => ({
  ...(await original<typeof import('node:crypto')>()),
  randomUUID: () => `${(drawn++).toString(16).padStart(8, '0')}-0000-4000-8000-000000000000`,
}));
beforeEach(() => {
  drawn = 0;
});

const RECORDING = join(import.meta.dirname, '__recordings__', 'runner-behaviour.json');
const RECORD = process.env.NANOBOT_RECORD === '1';
const DUMP = process.env.NANOBOT_RECORD_DUMP;
const recorded: Record<string, Record<string, string>> = RECORD ? {} : (JSON.parse(readFileSync(RECORDING, 'utf8')) as Record<string, Record<string, string>>);
const fresh: Record<string, Record<string, string>> = {};

/** Fields that differ between two runs of the same scenario (clocks), dropped before comparing. */
const VOLATILE = new Set(['durationMs', 'timestamp', 'updatedAt', 'createdAt', 'fetchedAt', 'signal', 'onNotice']);

/** Fresh call ids the runner draws at random (`call_` + 12 hex digits) become `call_#1`, … in order of appearance. */
const FRESH_ID = /call_[0-9a-f]{12}\b/g;

function normalise(value: unknown): unknown {
  const text = JSON.stringify(value, (key, v: unknown) => (VOLATILE.has(key) ? undefined : typeof v === 'number' && !Number.isFinite(v) ? String(v) : v));
  const seen = new Map<string, string>();
  return JSON.parse(text.replace(FRESH_ID, (id) => seen.get(id) ?? (seen.set(id, `call_#${seen.size + 1}`), `call_#${seen.size}`)));
}

function digest(value: unknown): string {
  return createHash('sha256').update(JSON.stringify(normalise(value))).digest('hex').slice(0, 24);
}

/** Compares (or records) one scenario's outputs, part by part so a failure names the part. */
function check(name: string, parts: Record<string, unknown>): void {
  const digests = Object.fromEntries(Object.entries(parts).map(([k, v]) => [k, digest(v)]));
  fresh[name] = digests;
  if (DUMP) {
    mkdirSync(DUMP, { recursive: true });
    writeFileSync(join(DUMP, `${name.replace(/[^a-z0-9.-]+/gi, '_')}.json`), JSON.stringify(normalise(parts), null, 1));
  }
  if (!RECORD) expect({ name, ...digests }).toEqual({ name, ...recorded[name] });
}

afterAll(() => {
  if (!RECORD) return;
  mkdirSync(join(import.meta.dirname, '__recordings__'), { recursive: true });
  const sorted = Object.fromEntries(Object.keys(fresh).sort().map((k) => [k, fresh[k]]));
  writeFileSync(RECORDING, `${JSON.stringify(sorted, null, 1)}\n`);
});

/** What a provider received, minus the parts that are not data (signal, notice callback). */
function wire(requests: readonly LLMRequest[]): unknown[] {
  return requests.map((r) => ({ ...r, tools: r.tools?.map((t) => t.function.name) }));
}

function collector(): { events: RunnerEvent[]; sink: (e: RunnerEvent) => void } {
  const events: RunnerEvent[] = [];
  return { events, sink: (e) => void events.push(e) };
}

const ANY = { type: 'object', properties: {}, additionalProperties: true } as const;


describe('recorded-session replays: governed requests on the wire, events, transcript', () => {
  const dir = join(process.env.NANOBOT_FIXTURES_DIR!, 'transcripts');
  const files = readdirSync(dir).filter((f) => f.endsWith('.json') && f !== 'MANIFEST.json').sort();
  it.each([8_000, 32_000])('every recorded transcript at a %i-token window, two turns of one session', async (windowTokens) => {
    // One runner for all: the cut plan of each session's first turn is re-applied in its second.
    const runner = new AgentRunner();
    const calibrator = createUsageCalibrator();
    for (const file of files) {
      const history = JSON.parse(readFileSync(join(dir, file), 'utf8')) as Message[];
      const tools = new ToolRegistry();
      tools.register(defineTool({ name: 'read_file', description: 'read', parameters: { type: 'object', properties: { path: { type: 'string' } } }, readOnly: true, compactable: true, execute: () => 'contents '.repeat(900) }));
      const provider = new ScriptedProvider([
        { toolCalls: [{ id: 'rf_1', name: 'read_file', arguments: { path: 'README.md' } }], usage: { inputTokens: 5000, outputTokens: 20 } },
        { content: 'Here is where we are.', usage: { inputTokens: 6000, outputTokens: 10 } },
        { content: 'Second turn.', usage: { inputTokens: 6100, outputTokens: 5 } },
      ]);
      const { events, sink } = collector();
      const base = { provider, tools, contextWindowTokens: windowTokens, maxTokens: 1024, model: 'gpt-4o', sessionKey: `replay:${file}`, calibrator, events: sink } satisfies Partial<AgentRunSpec>;
      const first = await runner.run({ ...base, runId: 'r1', initialMessages: [{ role: 'system', content: 'You are a coding agent.' }, ...history, { role: 'user', content: 'Summarise where we are.' }] });
      const second = await runner.run({ ...base, runId: 'r2', initialMessages: [...first.messages, { role: 'user', content: 'And now?' }] });
      check(`replay ${windowTokens} ${file}`, { wire: wire(provider.requests), events, first: first.messages.slice(first.appendedFrom), second: second.messages.slice(second.appendedFrom), usage: [first.usage, second.usage] });
    }
  });
});

/** Tools that misbehave in every way a tool can (as in fault.test.ts). */
function faultyRegistry(): ToolRegistry {
  const registry = new ToolRegistry({ defaultTimeoutMs: 15 });
  registry.register(defineTool({ name: 'ok', description: 'ok', parameters: ANY, readOnly: true, execute: () => 'fine' }));
  registry.register(defineTool({ name: 'throws', description: 't', parameters: ANY, execute: () => { throw new Error('tool exploded'); } }));
  registry.register(defineTool({ name: 'rejects', description: 'r', parameters: ANY, readOnly: true, execute: async () => Promise.reject(new RangeError('async failure')) }));
  registry.register(defineTool({ name: 'hangs', description: 'h', parameters: ANY, readOnly: true, execute: () => new Promise(() => undefined) }));
  registry.register(defineTool({ name: 'nothing', description: 'n', parameters: ANY, execute: () => undefined }));
  registry.register(defineTool({ name: 'error_result', description: 'e', parameters: ANY, execute: () => toolResult.error('Error: nope') }));
  registry.register(defineTool({ name: 'huge', description: 'big', parameters: ANY, readOnly: true, execute: () => 'x'.repeat(40_000) }));
  registry.register(defineTool({ name: 'throws_string', description: 's', parameters: ANY, execute: () => { throw 'a bare string'; } }));
  return registry;
}

const TOOL_NAMES = ['ok', 'throws', 'rejects', 'hangs', 'nothing', 'error_result', 'huge', 'throws_string', 'missing_tool', ''];

function randomScript(rand: () => number, run: number): ScriptedReply[] {
  const steps: ScriptedReply[] = [];
  const length = 1 + Math.floor(rand() * 6);
  for (let s = 0; s < length; s += 1) {
    const r = rand();
    if (r < 0.5) {
      const n = 1 + Math.floor(rand() * 3);
      steps.push({
        content: rand() < 0.3 ? 'working on it' : '',
        toolCalls: Array.from({ length: n }, (_, i) => ({ id: rand() < 0.1 ? 'dup' : `c${run}_${s}_${i}`, name: TOOL_NAMES[Math.floor(rand() * TOOL_NAMES.length)], arguments: rand() < 0.1 ? '{broken json' : { n: i } })),
      });
    } else if (r < 0.58) {
      steps.push({ content: 'partial answer that gets cut', cutAfter: 1 + Math.floor(rand() * 3) });
    } else if (r < 0.65) {
      steps.push({ error: new Error('upstream failure') });
    } else if (r < 0.74) {
      steps.push({ content: `too long ${s}`, finishReason: 'length' });
    } else if (r < 0.82) {
      steps.push({ content: rand() < 0.5 ? '' : '<think>only thinking</think>' });
    } else if (r < 0.86) {
      steps.push({ content: '', finishReason: 'error' });
    } else {
      steps.push({ content: `answer ${run}` });
    }
  }
  return steps;
}

describe('fault scripts: events and transcripts', () => {
  it('200 random runs (tools run one by one, so the order of events is the script\'s)', async () => {
    const rand = prng(31);
    const registry = faultyRegistry();
    const runner = new AgentRunner();
    for (let run = 0; run < 200; run += 1) {
      const provider = new ScriptedProvider(randomScript(rand, run), { whenExhausted: 'repeat-last' });
      const controller = new AbortController();
      // Aborts fire in a hook the runner awaits, so where they land does not depend on how many
      // microtasks the runner takes between two events (event sinks are delivered later).
      const abortAt = rand() < 0.25 ? 1 + Math.floor(rand() * 8) : -1;
      const injectAt = rand() < 0.2 ? 1 + Math.floor(rand() * 3) : -1;
      let hooked = 0;
      let drains = 0;
      const tick = (): void => {
        hooked += 1;
        if (hooked === abortAt) controller.abort();
      };
      const { events, sink } = collector();
      const spec: AgentRunSpec = {
        runId: `fault-${run}`,
        initialMessages: [{ role: 'system', content: 'sys' }, { role: 'user', content: `run ${run}` }],
        provider,
        tools: registry,
        failOnToolError: rand() < 0.2,
        finalizeOnMaxIterations: rand() < 0.7,
        maxIterations: 1 + Math.floor(rand() * 6),
        ...(rand() < 0.3 ? { sessionKey: `fault:${run % 4}` } : {}),
        ...(rand() < 0.2 ? { errorMessage: rand() < 0.5 ? null : 'custom error text' } : {}),
        ...(rand() < 0.5 ? { contextWindowTokens: 4000 + Math.floor(rand() * 8000), maxTokens: 512 } : {}),
        stream: rand() < 0.8,
        signal: controller.signal,
        injections: () => (++drains === injectAt ? [{ role: 'user', content: `follow-up ${run}` }] : []),
        hooks: { beforeModel: tick, afterModel: tick, beforeTool: tick, afterTool: tick },
        events: sink,
      };
      drawn = 0;
      let outcome: unknown;
      try {
        const result = await runner.run(spec);
        outcome = { ...result, outputError: result.outputError?.message, messages: result.messages.slice(result.appendedFrom) };
      } catch (error) {
        outcome = { threw: String(error) };
      }
      check(`fault run ${run}`, { wire: wire(provider.requests), events, outcome });
    }
  });
});

function runWith(steps: ScriptStep[], extra: Partial<AgentRunSpec> = {}, runner = new AgentRunner()): Promise<{ provider: ScriptedProvider; events: RunnerEvent[]; outcome: unknown }> {
  const provider = new ScriptedProvider(steps, { whenExhausted: 'repeat-last' });
  const { events, sink } = collector();
  const tools = new ToolRegistry();
  tools.register(defineTool({ name: 'echo', description: 'echo', parameters: { type: 'object', properties: { text: { type: 'string' } } }, readOnly: true, execute: (a: { text?: string }) => `echo: ${a.text ?? ''}` }));
  tools.register(defineTool({ name: 'fail', description: 'fail', parameters: ANY, execute: () => { throw new Error('failed hard'); } }));
  return runner
    .run({ runId: 'rule', initialMessages: [{ role: 'system', content: 'sys' }, { role: 'user', content: 'go' }], provider, tools, events: sink, ...extra })
    .then(
      (result) => ({ provider, events, outcome: { ...result, outputError: result.outputError?.message, messages: result.messages.slice(result.appendedFrom) } }),
      (error: unknown) => ({ provider, events, outcome: { threw: String(error) } }),
    );
}

const RULES: Record<string, [ScriptStep[], Partial<AgentRunSpec>?]> = {
  'empty answer, then answered on the silent retry': [[{ content: '' }, 'the answer']],
  'empty answer twice, then the no-tools finalization answers': [[{ content: '' }, { content: '   ' }, 'finally']],
  'empty answer three times: the empty final response': [[{ content: '' }, { content: '' }, { content: '' }]],
  'length continuation twice, then done': [[{ content: 'part one ', finishReason: 'length' }, { content: 'part two ', finishReason: 'length' }, 'the end']],
  'length continuation beyond the cap': [[{ content: 'a', finishReason: 'length' }, { content: 'b', finishReason: 'length' }, { content: 'c', finishReason: 'length' }, { content: 'd', finishReason: 'length' }]],
  'length continuation then tools reset the segments': [[{ content: 'a', finishReason: 'length' }, { toolCalls: [{ id: 't1', name: 'echo', arguments: { text: 'x' } }] }, 'done']],
  'all calls malformed, the retry answers': [[{ content: 'let me', toolCalls: [{ id: 'm1', name: '' }], finishReason: 'tool_calls' }, 'answered after retry']],
  'all calls malformed twice, the no-tools request answers': [[{ toolCalls: [{ id: 'm1', name: '' }], finishReason: 'tool_calls' }, { toolCalls: [{ id: 'm2', name: '' }], finishReason: 'tool_calls' }, 'no tools answer']],
  'some calls malformed: the rest run': [[{ toolCalls: [{ id: 'm1', name: '' }, { id: 'ok1', name: 'echo', arguments: { text: 'y' } }], finishReason: 'tool_calls' }, 'done']],
  'provider error: the failure row': [[{ error: new Error('boom') }]],
  'provider error with a custom error message': [[{ error: new Error('boom') }], { errorMessage: 'Sorry.' }],
  'error finish with content': [[{ content: 'upstream said no', finishReason: 'error' }]],
  'stream cut after text: the partial is kept': [[{ content: 'half of an answer here', cutAfter: 2 }]],
  'provider error then an injection continues the turn': [[{ error: new Error('boom') }, 'after the follow-up'], { injections: (() => { let n = 0; return () => (n++ === 0 ? [{ role: 'user', content: 'still there?' }] : []); })() }],
  'empty final then an injection continues the turn': [[{ content: '' }, { content: '' }, { content: '' }, 'recovered'], { injections: (() => { let n = 0; return () => (n++ === 0 ? [{ role: 'user', content: 'hello?' }] : []); })() }],
  'tool error fails fast (subagent)': [[{ toolCalls: [{ id: 'f1', name: 'fail' }, { id: 'e1', name: 'echo', arguments: { text: 'z' } }] }, 'never'], { failOnToolError: true }],
  'max iterations with the summary': [[{ toolCalls: [{ id: 'x', name: 'echo', arguments: { text: '1' } }] }, { toolCalls: [{ id: 'y', name: 'echo', arguments: { text: '2' } }] }, 'summary of it'], { maxIterations: 2 }],
  'max iterations without the summary': [[{ toolCalls: [{ id: 'x', name: 'echo', arguments: { text: '1' } }] }], { maxIterations: 1, finalizeOnMaxIterations: false, maxIterationsMessage: 'stopped at {max_iterations}' }],
  'max iterations after a length cut': [[{ content: 'cut ', finishReason: 'length' }, { toolCalls: [{ id: 'x', name: 'echo', arguments: { text: '1' } }] }, { content: 'more ', finishReason: 'length' }, 'summary'], { maxIterations: 3 }],
  'structured output answered': [['{"city":"Paris"}'], { output: { name: 'place', schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false } } }],
  'structured output off the schema': [['not json'], { output: { name: 'place', schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false } } }],
  'reused call ids get fresh ones': [[{ toolCalls: [{ id: 'call_0', name: 'echo', arguments: { text: 'a' } }] }, { toolCalls: [{ id: 'call_0', name: 'echo', arguments: { text: 'b' } }] }, 'done']],
  'reasoning in think tags and fields': [[{ content: '<think>hmm</think>visible', reasoning: 'separate reasoning' }]],
  'hooks rewrite a tool result and the final text': [[{ toolCalls: [{ id: 'h1', name: 'echo', arguments: { text: 'a' } }] }, 'final'], { hooks: { afterTool: () => ({ content: 'rewritten' }), finalizeContent: (t: string) => `${t}!` } }],
  'a critical hook fails the run': [['x'], { hooks: { critical: true, beforeModel: () => { throw new Error('hook broke'); } } }],
  'non-streaming provider': [[{ toolCalls: [{ id: 'n1', name: 'echo', arguments: { text: 'a' } }] }, 'done'], { stream: false }],
};

describe('one scenario per recovery rule: events, requests, result', () => {
  it.each(Object.keys(RULES))('%s', async (name) => {
    const [steps, extra] = RULES[name];
    const { provider, events, outcome } = await runWith(steps, extra);
    check(`rule ${name}`, { wire: wire(provider.requests), events, outcome });
  });

  it('exact count and calibration across turns of one session', async () => {
    const runner = new AgentRunner();
    const calibrator = createUsageCalibrator();
    const scripted = new ScriptedProvider([
      { toolCalls: [{ id: 'a1', name: 'echo', arguments: { text: 'q' } }], usage: { inputTokens: 300, outputTokens: 5 } },
      { content: 'one', usage: { inputTokens: 340, outputTokens: 5 } },
      { content: 'two', usage: { inputTokens: 380, outputTokens: 5 } },
    ]);
    const counted: number[] = [];
    const provider: LLMProvider = Object.assign(Object.create(scripted) as ScriptedProvider, {
      countTokens: (request: { messages: readonly Message[] }) => {
        counted.push(request.messages.length);
        return Promise.resolve({ inputTokens: 77 * request.messages.length, provider: 'scripted', model: 'gpt-4o' });
      },
    });
    const { events, sink } = collector();
    const base = { provider, model: 'gpt-4o', calibrator, sessionKey: 'calib', contextWindowTokens: 16_000, maxTokens: 1000, events: sink } satisfies Partial<AgentRunSpec>;
    const tools = new ToolRegistry();
    tools.register(defineTool({ name: 'echo', description: 'echo', parameters: ANY, readOnly: true, execute: () => 'echoed' }));
    const first = await runner.run({ ...base, tools, runId: 'c1', initialMessages: [{ role: 'system', content: 'sys' }, { role: 'user', content: 'hi' }] });
    const second = await runner.run({ ...base, tools, runId: 'c2', initialMessages: [...first.messages, { role: 'user', content: 'again' }] });
    check('rule exact count and calibration', { wire: wire(scripted.requests), events, counted, usage: [first.usage, second.usage], calibrator: calibrator.toJSON() });
  });

  it('model facts size the run', async () => {
    const { provider, events, outcome } = await runWith(['sized'], {
      model: 'some-model',
      modelFacts: { lookup: () => Promise.resolve({ provider: 'scripted', model: 'some-model', source: 'table' as const, contextWindow: 9000, maxOutput: 2000 }) },
    });
    check('rule model facts', { wire: wire(provider.requests), events, outcome });
  });
});

describe('the session loop: what the provider received and what was saved', () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });
  it('turns of two sessions, with tools, failures and a subagent-free loop', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'runner-record-'));
    dirs.push(dir);
    const sessions = new JsonlSessionStore({ dir, fsync: 'never' });
    const provider = new ScriptedProvider([
      { toolCalls: [{ id: 'l1', name: 'echo', arguments: { text: 'one' } }] },
      'first reply',
      { error: new Error('down') },
      { content: '', finishReason: 'stop' },
      { content: '' },
      { content: '' },
      'third reply',
    ]);
    const tools = new ToolRegistry();
    tools.register(defineTool({ name: 'echo', description: 'echo', parameters: ANY, readOnly: true, execute: () => 'echoed' }));
    const { events, sink } = collector();
    const loop = new AgentLoop({ bus: new MessageBus(), provider, tools, sessions, systemPrompt: 'You are nanobot.', contextWindowTokens: 8000, maxTokens: 500, events: sink, model: 'gpt-4o' });
    const replies: unknown[] = [];
    for (const [chatId, content] of [['a', 'hello'], ['a', 'again'], ['b', 'other'], ['a', 'third']] as const) {
      const outcome = await loop.submit({ channel: 'test', senderId: 'u', chatId, content });
      replies.push(outcome.reply);
    }
    await loop.stop();
    const saved: unknown[] = [];
    for (const key of (await sessions.list()).sort()) saved.push((await sessions.load(key)).session.messages);
    const stable = events.map((e) => ({ ...e, runId: undefined }));
    check('loop two sessions', { wire: wire(provider.requests), events: stable, replies, saved });
  });
});
