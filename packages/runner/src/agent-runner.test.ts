import { describe, expect, it } from 'vitest';
import type { LLMProvider, Message } from '@nanobot/schema';
import { createEstimator, MODEL_ERROR_NOTE, NanobotError, TOOL_INTERRUPTED_NOTE } from '@nanobot/schema';
import { ToolRegistry } from '@nanobot/registry';
import { ScriptedProvider } from '@nanobot/providers/testing';
import { defineTool, toolResult } from '@nanobot/tools-core';
import { AgentRunner } from './agent-runner.js';
import type { AgentRunSpec } from './agent-runner.js';
import type { RunnerEvent } from './runner-events.js';
import type { GovernedRequest } from './runner-ports.js';
import { FakeModel, call, scripted, textStep, toolsStep } from './test-support/fake-model.js';
import { legalityProblems } from './test-support/legality.js';
import { simpleGovern } from './test-support/simple-govern.js';
import {
  EMPTY_FINAL_RESPONSE_MESSAGE,
  FINALIZATION_RETRY_PROMPT,
  LENGTH_RECOVERY_PROMPT,
  MAX_ITERATIONS_FINALIZE_PROMPT,
  SSRF_NOTE,
} from './runner-texts.js';

const OBJ = { type: 'object', properties: {}, additionalProperties: true } as const;

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value as object)) deepFreeze(v);
  }
  return value;
}

function initial(text = 'hello'): Message[] {
  return deepFreeze([
    { role: 'system', content: 'You are a test agent.' },
    { role: 'user', content: text },
  ]);
}

class WorkspaceViolation extends NanobotError {
  constructor(readonly path: string) {
    super('WORKSPACE_VIOLATION', `Path ${path} is outside allowed directory /ws`);
  }
}
class SsrfBlocked extends NanobotError {
  constructor(readonly url: string) {
    super('SSRF_BLOCKED', `Blocked: ${url} resolves to private/internal address 127.0.0.1`);
  }
}

function spec(model: LLMProvider, registry: ToolRegistry, extra: Partial<AgentRunSpec> = {}): AgentRunSpec {
  return { initialMessages: initial(), provider: model, tools: registry, govern: simpleGovern, ...extra };
}

function registryWith(...tools: ReturnType<typeof defineTool>[]): ToolRegistry {
  const registry = new ToolRegistry();
  for (const tool of tools) registry.register(tool);
  return registry;
}

describe('AgentRunner basics', () => {
  it('answers without tools and appends exactly one assistant message', async () => {
    const model = scripted([textStep('Hi there')]);
    const init = initial();
    const result = await new AgentRunner().run(spec(model, registryWith(), { initialMessages: init }));
    expect(result.stopReason).toBe('completed');
    expect(result.finalContent).toBe('Hi there');
    expect(result.messages).toHaveLength(3);
    expect(result.messages.slice(0, 2)).toEqual(init);
    expect(result.messages[2]).toEqual({ role: 'assistant', content: 'Hi there' });
    expect(result.appendedFrom).toBe(2);
  });

  it('runs a tool, appends its result after the call, then answers', async () => {
    const echo = defineTool({ name: 'echo', description: 'echo', parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] }, readOnly: true, execute: (a: { text: string }) => `echo: ${a.text}` });
    const model = scripted([toolsStep(call('echo', { text: 'x' }, 'c1')), textStep('done')]);
    const result = await new AgentRunner().run(spec(model, registryWith(echo)));
    expect(result.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'assistant']);
    expect(result.messages[2].tool_calls?.[0]).toEqual({ id: 'c1', type: 'function', function: { name: 'echo', arguments: '{"text": "x"}' } });
    expect(result.messages[3]).toEqual({ role: 'tool', tool_call_id: 'c1', name: 'echo', content: 'echo: x' });
    expect(result.toolsUsed).toEqual(['echo']);
    expect(result.toolEvents).toEqual([{ callId: 'c1', name: 'echo', status: 'ok', detail: 'echo: x' }]);
    expect(legalityProblems(result.messages)).toEqual([]);
  });

  it('a tool-call id reused by the model in a later turn is stored under a fresh id', async () => {
    const echo = defineTool({ name: 'echo', description: 'e', parameters: OBJ, execute: () => 'x' });
    const history: Message[] = deepFreeze([
      { role: 'user', content: 'before' },
      { role: 'assistant', content: '', tool_calls: [{ id: 'call_0', type: 'function', function: { name: 'echo', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'call_0', name: 'echo', content: 'x' },
      { role: 'assistant', content: 'ok' },
      { role: 'user', content: 'again' },
    ]);
    const model = scripted([toolsStep(call('echo', {}, 'call_0'), call('echo', {}, 'call_0')), textStep('done')]);
    const result = await new AgentRunner().run(spec(model, registryWith(echo), { initialMessages: history }));
    const ids = result.messages.flatMap((m) => (m.tool_calls ?? []).map((c) => c.id));
    expect(new Set(ids).size).toBe(3);
    expect(legalityProblems(result.messages)).toEqual([]);
  });

  it('an empty tool result reads "(<name> completed with no output)"', async () => {
    const quiet = defineTool({ name: 'quiet', description: 'q', parameters: OBJ, execute: () => undefined });
    const model = scripted([toolsStep(call('quiet', {}, 'c1')), textStep('ok')]);
    const result = await new AgentRunner().run(spec(model, registryWith(quiet)));
    expect(result.messages[3].content).toBe('(quiet completed with no output)');
  });

  it('sends the governed copy while the transcript keeps no synthetic rows (reference tests 8, 9)', async () => {
    const history: Message[] = deepFreeze([
      { role: 'system', content: 's' },
      { role: 'user', content: 'old' },
      { role: 'assistant', content: '', tool_calls: [{ id: 'lost', type: 'function', function: { name: 'x', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'orphan', name: 'x', content: 'stray' },
      { role: 'user', content: 'new' },
    ]);
    const model = scripted([textStep('answer')]);
    const result = await new AgentRunner().run(spec(model, registryWith(), { initialMessages: history }));
    const sent = model.requests[0].messages;
    expect(sent.some((m) => m.role === 'tool' && m.tool_call_id === 'lost')).toBe(true);
    expect(sent.some((m) => m.tool_call_id === 'orphan')).toBe(false);
    expect(result.messages.slice(0, 5)).toEqual(history);
    expect(result.messages[3].tool_call_id).toBe('orphan');
    expect(result.messages).toHaveLength(6);
  });
});

describe('declared tool traits reach the governor', () => {
  it('every request passes the registry\'s toolTraits table (the same object while the tools do not change)', async () => {
    const reader = defineTool({
      name: 'page',
      description: 'p',
      readOnly: true,
      compactable: true,
      rereadable: true,
      parameters: { type: 'object', properties: { offset: { type: 'integer' }, limit: { type: 'integer' } } },
      execute: () => 'lines',
    });
    // Named like the built-in, declaring nothing: it must get nothing.
    const impostor = defineTool({ name: 'read_file', description: 'r', parameters: OBJ, execute: () => 'x' });
    const registry = registryWith(reader, impostor);
    const seen: unknown[] = [];
    const model = scripted([toolsStep(call('page', {}, '1')), textStep('done')]);
    await new AgentRunner().run(
      spec(model, registry, {
        govern: (messages, options) => {
          seen.push(options.toolTraits);
          return simpleGovern(messages, options);
        },
      }),
    );
    expect(seen).toHaveLength(2);
    expect(seen[0]).toBe(registry.toolTraits());
    expect(seen[1]).toBe(seen[0]);
    const table = seen[0] as ReturnType<ToolRegistry['toolTraits']>;
    expect(table.page).toMatchObject({ compactable: true, rereadable: { offsetParam: 'offset', limitParam: 'limit', unit: 'lines', firstOffset: 1 } });
    expect(table.read_file).toEqual({ readOnly: false, compactable: false, rereadable: null });
  });

  it('a registry without toolTraits (a custom view) passes none', async () => {
    const registry = registryWith();
    const view = { definitions: () => registry.definitions(), get: registry.get.bind(registry), prepareCall: registry.prepareCall.bind(registry), execute: registry.execute.bind(registry) };
    let options: Record<string, unknown> | undefined;
    await new AgentRunner().run(
      spec(scripted([textStep('ok')]), registry, {
        tools: view,
        govern: (messages, o) => {
          options = o as unknown as Record<string, unknown>;
          return simpleGovern(messages, o);
        },
      }),
    );
    expect(options).toBeDefined();
    expect('toolTraits' in options!).toBe(false);
  });
});

describe('tool batches', () => {
  it('consecutive read-only tools start together and both finish before a following write starts (reference 99)', async () => {
    const log: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let started = 0;
    const reader = (name: string) =>
      defineTool({
        name,
        description: name,
        parameters: OBJ,
        readOnly: true,
        execute: async () => {
          log.push(`start ${name}`);
          started += 1;
          if (started === 2) release();
          await gate;
          log.push(`end ${name}`);
          return name;
        },
      });
    const writer = defineTool({ name: 'write', description: 'w', parameters: OBJ, execute: () => { log.push('write'); return 'w'; } });
    const model = scripted([toolsStep(call('r1', {}, 'a'), call('r2', {}, 'b'), call('write', {}, 'c')), textStep('ok')]);
    const result = await new AgentRunner().run(spec(model, registryWith(reader('r1'), reader('r2'), writer), { concurrentTools: true }));
    expect(log.slice(0, 2).sort()).toEqual(['start r1', 'start r2']);
    expect(log.indexOf('write')).toBe(4);
    expect(result.messages.slice(3, 6).map((m) => m.tool_call_id)).toEqual(['a', 'b', 'c']);
  });

  it('an exclusive read-only tool splits batches', async () => {
    const log: string[] = [];
    const mk = (name: string, exclusive: boolean) =>
      defineTool({ name, description: name, parameters: OBJ, readOnly: true, exclusive, execute: async () => { log.push(`s ${name}`); await new Promise((r) => setTimeout(r, 5)); log.push(`e ${name}`); return name; } });
    const model = scripted([toolsStep(call('a', {}, '1'), call('x', {}, '2'), call('b', {}, '3')), textStep('ok')]);
    await new AgentRunner().run(spec(model, registryWith(mk('a', false), mk('x', true), mk('b', false)), { concurrentTools: true }));
    expect(log).toEqual(['s a', 'e a', 's x', 'e x', 's b', 'e b']);
  });

  it('appends results in the order asked whatever order they finish in', async () => {
    const slow = defineTool({ name: 'slow', description: 's', parameters: OBJ, readOnly: true, execute: async () => { await new Promise((r) => setTimeout(r, 20)); return 'slow'; } });
    const fast = defineTool({ name: 'fast', description: 'f', parameters: OBJ, readOnly: true, execute: () => 'fast' });
    const events: RunnerEvent[] = [];
    const model = scripted([toolsStep(call('slow', {}, '1'), call('fast', {}, '2')), textStep('ok')]);
    const result = await new AgentRunner().run(spec(model, registryWith(slow, fast), { concurrentTools: true, events: (e) => void events.push(e) }));
    expect(result.messages.slice(3, 5).map((m) => m.content)).toEqual(['slow', 'fast']);
    const ends = events.filter((e) => e.type === 'tool_end').map((e) => (e as { name: string }).name);
    expect(ends).toEqual(['fast', 'slow']);
  });

  it('without concurrentTools every call runs alone', async () => {
    let inFlight = 0;
    let peak = 0;
    const mk = (name: string) => defineTool({ name, description: name, parameters: OBJ, readOnly: true, execute: async () => { inFlight += 1; peak = Math.max(peak, inFlight); await new Promise((r) => setTimeout(r, 2)); inFlight -= 1; return name; } });
    const model = scripted([toolsStep(call('a', {}, '1'), call('b', {}, '2')), textStep('ok')]);
    await new AgentRunner().run(spec(model, registryWith(mk('a'), mk('b'))));
    expect(peak).toBe(1);
  });
});

describe('model-side tool failures are data', () => {
  it('a near-miss name is never executed; the call is replayed verbatim next iteration (reference 100)', async () => {
    let ran = 0;
    const readFile = defineTool({ name: 'read_file', description: 'r', parameters: OBJ, readOnly: true, execute: () => { ran += 1; return 'x'; } });
    const model = scripted([toolsStep(call('readFile', { path: 'a' }, 'c1')), textStep('ok')]);
    const result = await new AgentRunner().run(spec(model, registryWith(readFile)));
    expect(ran).toBe(0);
    expect(result.toolsUsed).toEqual([]);
    expect(String(result.messages[3].content)).toContain("Error: Tool 'readFile' not found. Did you mean 'read_file'?");
    expect(String(result.messages[3].content)).toContain('[Analyze the error above and try a different approach.]');
    const replayed = model.requests[1].messages.find((m) => m.role === 'assistant' && m.tool_calls);
    expect(replayed?.tool_calls?.[0].function).toEqual({ name: 'readFile', arguments: '{"path": "a"}' });
  });

  it.each([['["TODO"]', 'list'], ['null', 'str'], [[1, 2], 'list']])('arguments %j reach the model as "parameters must be a JSON object"', async (args, type) => {
    let ran = 0;
    const tool = defineTool({ name: 'exec', description: 'e', parameters: OBJ, execute: () => { ran += 1; return 'x'; } });
    const model = scripted([toolsStep(call('exec', args, 'c1')), textStep('ok')]);
    const result = await new AgentRunner().run(spec(model, registryWith(tool)));
    expect(ran).toBe(0);
    expect(String(result.messages[3].content)).toContain(`parameters must be a JSON object, got ${type}`);
  });

  it('a throwing tool gives an error result and the run goes on', async () => {
    const boom = defineTool({ name: 'boom', description: 'b', parameters: OBJ, execute: () => { throw new TypeError('kaput'); } });
    const model = scripted([toolsStep(call('boom', {}, 'c1')), textStep('recovered')]);
    const result = await new AgentRunner().run(spec(model, registryWith(boom)));
    expect(result.stopReason).toBe('completed');
    expect(result.messages[3].content).toBe('Error executing boom: kaput\n\n[Analyze the error above and try a different approach.]');
    expect(result.toolEvents[0]).toMatchObject({ status: 'error', detail: 'Error executing boom: kaput' });
  });

  it('failOnToolError stops at the first failing call with stop reason tool_error', async () => {
    const bad = defineTool({ name: 'bad', description: 'b', parameters: OBJ, execute: () => toolResult.error('Error: disk full') });
    const good = defineTool({ name: 'good', description: 'g', parameters: OBJ, execute: () => 'fine' });
    const model = scripted([toolsStep(call('good', {}, '1'), call('bad', {}, '2')), textStep('never')]);
    const result = await new AgentRunner().run(spec(model, registryWith(bad, good), { failOnToolError: true }));
    expect(result.stopReason).toBe('tool_error');
    expect(result.finalContent).toBe('Error: disk full');
    expect(result.messages.at(-1)).toEqual({ role: 'assistant', content: 'Error: disk full' });
    expect(result.messages.filter((m) => m.role === 'tool')).toHaveLength(2);
    expect(model.requests).toHaveLength(1);
  });
});

describe('guards', () => {
  it('a third identical web_fetch is blocked after two real executions (reference 101)', async () => {
    let fetches = 0;
    const webFetch = defineTool({ name: 'web_fetch', description: 'f', parameters: { type: 'object', properties: { url: { type: 'string' } } }, readOnly: true, execute: () => { fetches += 1; return 'page'; } });
    const model = scripted([
      toolsStep(call('web_fetch', { url: 'https://x.test/a' }, '1')),
      toolsStep(call('web_fetch', { url: 'https://X.test/a ' }, '2')),
      toolsStep(call('web_fetch', { url: 'https://x.test/a' }, '3')),
      textStep('ok'),
    ]);
    const result = await new AgentRunner().run(spec(model, registryWith(webFetch)));
    expect(fetches).toBe(2);
    expect(String(result.messages.find((m) => m.tool_call_id === '3')?.content)).toContain('repeated external lookup blocked');
    expect(result.toolEvents[2]).toMatchObject({ status: 'error', detail: 'repeated external lookup blocked' });
  });

  it('workspace violations never abort the run, even with failOnToolError, and escalate on the third attempt (reference 102)', async () => {
    const readFile = defineTool({
      name: 'read_file',
      description: 'r',
      parameters: { type: 'object', properties: { path: { type: 'string' } } },
      readOnly: true,
      execute: (a: { path: string }) => ({ ...toolResult.error(`Error: Path ${a.path} is outside allowed directory /ws`), violation: new WorkspaceViolation(a.path) }),
    });
    const exec = defineTool({ name: 'exec', description: 'e', parameters: { type: 'object', properties: { command: { type: 'string' } } }, execute: () => { throw new WorkspaceViolation('/etc/passwd'); } });
    const model = scripted([
      toolsStep(call('read_file', { path: '/etc/passwd' }, '1')),
      toolsStep(call('exec', { command: 'cat /etc/passwd' }, '2')),
      toolsStep(call('read_file', { path: '/etc/passwd' }, '3')),
      textStep('I cannot read that file.'),
    ]);
    const result = await new AgentRunner().run(spec(model, registryWith(readFile, exec), { failOnToolError: true }));
    expect(result.stopReason).toBe('completed');
    expect(result.toolEvents.map((e) => e.detail.split(':')[0])).toEqual(['workspace_violation', 'workspace_violation', 'workspace_violation_escalated']);
    const third = String(result.messages.find((m) => m.tool_call_id === '3')?.content);
    expect(third).toContain('Error: refusing repeated workspace-bypass attempts.');
    expect(third).toContain("You have tried to access '/etc/passwd' (or an equivalent path) 3 times in this turn.");
  });

  it('SSRF refusals get the non-bypassable note and the ssrf_violation detail (reference 102)', async () => {
    const webFetch = defineTool({ name: 'web_fetch', description: 'f', parameters: { type: 'object', properties: { url: { type: 'string' } } }, readOnly: true, execute: (a: { url: string }) => { throw new SsrfBlocked(a.url); } });
    const model = scripted([toolsStep(call('web_fetch', { url: 'http://127.0.0.1/' }, '1')), textStep('blocked')]);
    const result = await new AgentRunner().run(spec(model, registryWith(webFetch), { failOnToolError: true }));
    expect(result.stopReason).toBe('completed');
    const content = String(result.messages[3].content);
    expect(content.endsWith(`\n\n${SSRF_NOTE}`)).toBe(true);
    expect(content).toContain('tools.ssrfWhitelist');
    expect(result.toolEvents[0].detail.startsWith('ssrf_violation: ')).toBe(true);
  });

  it('text that merely mentions a "private address" is not classified as a violation', async () => {
    const tool = defineTool({ name: 'echo', description: 'e', parameters: OBJ, execute: () => toolResult.error('Error: private address book is locked') });
    const model = scripted([toolsStep(call('echo', {}, '1')), textStep('ok')]);
    const result = await new AgentRunner().run(spec(model, registryWith(tool)));
    expect(result.toolEvents[0].detail).toBe('Error: private address book is locked');
  });
});

describe('recovery paths', () => {
  it('an empty answer is retried once, then asked for without tools', async () => {
    const model = scripted([textStep(''), textStep('  '), textStep('final words')]);
    const result = await new AgentRunner().run(spec(model, registryWith()));
    expect(result.finalContent).toBe('final words');
    expect(model.requests).toHaveLength(3);
    expect(model.requests[2].tools).toBeUndefined();
    expect(model.requests[2].messages.at(-1)).toEqual({ role: 'user', content: FINALIZATION_RETRY_PROMPT });
    expect(result.messages.filter((m) => m.content === FINALIZATION_RETRY_PROMPT)).toHaveLength(0);
  });

  it('blank after every recovery ends with empty_final_response', async () => {
    const model = scripted([textStep(''), textStep(''), textStep('')]);
    const result = await new AgentRunner().run(spec(model, registryWith()));
    expect(result.stopReason).toBe('empty_final_response');
    expect(result.finalContent).toBe(EMPTY_FINAL_RESPONSE_MESSAGE);
  });

  it('a length cut-off asks for the continuation quoting the last 64 characters', async () => {
    const first = 'A'.repeat(100) + 'tail-end';
    const model = scripted([{ content: first, finishReason: 'length' }, textStep(' and the rest.')]);
    const result = await new AgentRunner().run(spec(model, registryWith()));
    expect(result.finalContent).toBe(`${first} and the rest.`);
    const prompt = String(result.messages[3].content);
    expect(prompt.startsWith(LENGTH_RECOVERY_PROMPT)).toBe(true);
    expect(prompt).toContain(`<already_delivered_tail>\n${first.slice(-64)}\n</already_delivered_tail>`);
  });

  it('a model error is stored as a failure row (no text in the assistant\'s voice) and reported', async () => {
    const model = scripted([{ content: 'rate limited', finishReason: 'error' }]);
    const result = await new AgentRunner().run(spec(model, registryWith()));
    expect(result.stopReason).toBe('error');
    expect(result.finalContent).toBe('rate limited');
    expect(result.messages.at(-1)).toEqual({ role: 'assistant', content: '', _failure: { kind: 'model_error', detail: 'rate limited' } });
  });

  it('after a model error, an injected follow-up is answered from a request that shows the failure as a note, not as a reply', async () => {
    const model = scripted([{ content: 'rate limited', finishReason: 'error' }, textStep('answered')]);
    let injected = false;
    const result = await new AgentRunner().run(
      spec(model, registryWith(), {
        injections: () => {
          if (injected) return [];
          injected = true;
          return [{ role: 'user', content: 'still there?' }];
        },
      }),
    );
    expect(result.finalContent).toBe('answered');
    const second = model.requests[1].messages;
    expect(second.map((m) => [m.role, m.content])).toEqual([
      ['system', 'You are a test agent.'],
      ['user', 'hello'],
      ['user', MODEL_ERROR_NOTE],
      ['user', 'still there?'],
    ]);
    // Stored as data; the note exists only in the request.
    expect(result.messages.some((m) => m._failure !== undefined && m.role === 'assistant')).toBe(true);
  });

  it('a provider failing mid-stream keeps the partial text flagged and the transcript legal', async () => {
    const tool = defineTool({ name: 't', description: 't', parameters: OBJ, execute: () => 'r' });
    const model = scripted([toolsStep(call('t', {}, '1')), { content: 'Half an answer that never ends', deltas: ['Half an ', 'answer', ' that never ends'], cutAfter: 2 }]);
    const result = await new AgentRunner().run(spec(model, registryWith(tool)));
    expect(result.stopReason).toBe('error');
    expect(result.finalContent).toMatch(/^Error calling LLM: .*cut/);
    expect(result.messages.at(-1)).toEqual({ role: 'assistant', content: 'Half an answer', _interrupted: true });
    expect(legalityProblems(result.messages)).toEqual([]);
  });

  it('a model call that outlives llmTimeoutMs becomes a model error with the reference text', async () => {
    const model = new ScriptedProvider([() => new Promise<never>(() => undefined)]);
    const result = await new AgentRunner().run(spec(model, registryWith(), { stream: false, llmTimeoutMs: 20 }));
    expect(result.stopReason).toBe('error');
    expect(result.finalContent).toBe('Error calling LLM: timed out after 0.02s');
    expect(legalityProblems(result.messages)).toEqual([]);
  });

  it('drops malformed tool calls and retries once with the note', async () => {
    const model = new FakeModel([{ content: 'let me', toolCalls: [{ id: 'x', name: '', arguments: {} }], finishReason: 'tool_calls' }, textStep('plain answer')]);
    const result = await new AgentRunner().run(spec(model, registryWith()));
    expect(result.finalContent).toBe('plain answer');
    expect(String(model.requests[1].messages.at(-1)?.content)).toContain('every tool call was malformed');
    expect(String(model.requests[1].messages.at(-1)?.content)).toContain('Previous assistant text before the malformed calls:\nlet me');
  });

  it('on max iterations the no-tools summary request goes through the governor', async () => {
    const loop = defineTool({ name: 'loop', description: 'l', parameters: OBJ, execute: () => 'again' });
    const governed: number[] = [];
    const govern: AgentRunSpec['govern'] = (messages, options) => {
      governed.push(messages.length);
      return simpleGovern(messages, options);
    };
    const model = scripted([toolsStep(call('loop', {}, '1')), toolsStep(call('loop', {}, '2')), textStep('Summary: looped twice.')]);
    const result = await new AgentRunner().run(spec(model, registryWith(loop), { maxIterations: 2, govern }));
    expect(result.stopReason).toBe('max_iterations');
    expect(result.finalContent).toBe('Summary: looped twice.');
    expect(governed).toHaveLength(3);
    expect(model.requests[2].tools).toBeUndefined();
    expect(model.requests[2].messages.at(-1)?.content).toBe(MAX_ITERATIONS_FINALIZE_PROMPT);
    expect(result.messages.at(-1)).toEqual({ role: 'assistant', content: 'Summary: looped twice.' });
  });

  it('max iterations without finalisation uses the configured message', async () => {
    const loop = defineTool({ name: 'loop', description: 'l', parameters: OBJ, execute: () => 'again' });
    const model = scripted([toolsStep(call('loop', {}, '1'))]);
    const result = await new AgentRunner().run(spec(model, registryWith(loop), { maxIterations: 1, finalizeOnMaxIterations: false, maxIterationsMessage: 'Stopped after {max_iterations}.' }));
    expect(result.finalContent).toBe('Stopped after 1.');
    expect(model.requests).toHaveLength(1);
  });
});

describe('abort', () => {
  it('abort mid-stream keeps the partial text flagged; the next run works on the transcript', async () => {
    const controller = new AbortController();
    const model = scripted([{ content: 'Partial thought and more', deltas: ['Partial ', 'thought', ' and more'] }], { deltaDelayMs: 2 });
    const events: RunnerEvent[] = [];
    const run = new AgentRunner().run(spec(model, registryWith(), {
      signal: controller.signal,
      events: (e) => {
        events.push(e);
        if (e.type === 'model_delta' && e.delta === 'thought') controller.abort();
      },
    }));
    const result = await run;
    expect(result.stopReason).toBe('aborted');
    expect(result.messages.at(-1)).toEqual({ role: 'assistant', content: 'Partial thought', _interrupted: true });
    const next = await new AgentRunner().run(spec(scripted([textStep('fresh')]), registryWith(), { initialMessages: [...result.messages, { role: 'user', content: 'again' }] }));
    expect(next.finalContent).toBe('fresh');
  });

  it('abort while tools hang gives every started and unstarted call an interrupted result', async () => {
    const controller = new AbortController();
    const hang = defineTool({ name: 'hang', description: 'h', parameters: OBJ, readOnly: true, execute: (_a, ctx) => new Promise(() => { void ctx; setTimeout(() => controller.abort(), 5); }) });
    const after = defineTool({ name: 'after', description: 'a', parameters: OBJ, execute: () => 'never' });
    const model = scripted([toolsStep(call('hang', {}, '1'), call('after', {}, '2'))]);
    const result = await new AgentRunner().run(spec(model, registryWith(hang, after), { signal: controller.signal, concurrentTools: true }));
    expect(result.stopReason).toBe('aborted');
    const tools = result.messages.filter((m) => m.role === 'tool');
    expect(tools.map((m) => m.content)).toEqual([TOOL_INTERRUPTED_NOTE, TOOL_INTERRUPTED_NOTE]);
    expect(tools.map((m) => m._failure)).toEqual([{ kind: 'interrupted' }, { kind: 'interrupted' }]);
    expect(result.toolEvents.map((e) => e.status)).toEqual(['interrupted', 'interrupted']);
    expect(legalityProblems(result.messages)).toEqual([]);
  });

  it('a call cut off by an abort reports how long it ran, a call that never started reports 0', async () => {
    const controller = new AbortController();
    const events: RunnerEvent[] = [];
    const hang = defineTool({ name: 'hang', description: 'h', parameters: OBJ, execute: () => new Promise(() => { setTimeout(() => controller.abort(), 60); }) });
    const after = defineTool({ name: 'after', description: 'a', parameters: OBJ, execute: () => 'never' });
    const model = scripted([toolsStep(call('hang', {}, '1'), call('after', {}, '2'))]);
    await new AgentRunner().run(spec(model, registryWith(hang, after), { signal: controller.signal, events: (e) => void events.push(e) }));
    await new Promise((r) => setTimeout(r, 0));
    const ends = events.filter((e) => e.type === 'tool_end') as Extract<RunnerEvent, { type: 'tool_end' }>[];
    expect(ends.map((e) => [e.name, e.status])).toEqual([['hang', 'interrupted'], ['after', 'interrupted']]);
    // Lower bounds only: the hanging call ran at least until the abort fired.
    expect(ends[0]!.durationMs).toBeGreaterThanOrEqual(50);
    expect(ends[1]!.durationMs).toBeLessThan(ends[0]!.durationMs);
  });

  it('an already aborted signal appends nothing', async () => {
    const controller = new AbortController();
    controller.abort();
    const model = scripted([textStep('never')]);
    const result = await new AgentRunner().run(spec(model, registryWith(), { signal: controller.signal }));
    expect(result.stopReason).toBe('aborted');
    expect(result.messages).toHaveLength(2);
    expect(model.requests).toHaveLength(0);
  });
});

describe('events and hooks', () => {
  it('delivers one ordered stream to async sinks; a throwing sink is isolated', async () => {
    const echo = defineTool({ name: 'echo', description: 'e', parameters: OBJ, execute: () => 'x' });
    const slow: string[] = [];
    const errors: unknown[] = [];
    const model = scripted([toolsStep(call('echo', {}, '1')), textStep('done')]);
    const result = await new AgentRunner().run(spec(model, registryWith(echo), {
      events: [
        async (e) => {
          await new Promise((r) => setTimeout(r, e.type === 'turn_start' ? 10 : 0));
          slow.push(e.type);
        },
        () => {
          throw new Error('broken sink');
        },
      ],
      onSinkError: (error) => errors.push(error),
    }));
    expect(result.finalContent).toBe('done');
    const types = slow.filter((t) => t !== 'message_appended');
    expect(types[0]).toBe('turn_start');
    expect(types.at(-1)).toBe('turn_end');
    expect(types).toEqual([
      'turn_start', 'iteration_start', 'governance', 'model_start', 'tool_call_delta', 'tool_call_delta', 'model_end', 'tool_start', 'tool_end',
      'iteration_start', 'governance', 'model_start', 'model_delta', 'model_end', 'turn_end',
    ]);
    expect(errors.length).toBe(slow.length);
  });

  it('the governance event carries the governor report', async () => {
    const events: RunnerEvent[] = [];
    await new AgentRunner().run(spec(scripted([textStep('x')]), registryWith(), { events: (e) => void events.push(e) }));
    const gov = events.find((e) => e.type === 'governance');
    expect(gov).toMatchObject({ type: 'governance', report: { backfilled: [], dropped: [] }, transcriptCount: 2, requestCount: 2 });
  });

  it('the provider and beforeModel get a snapshot: a request held past its turn never grows (real governor)', async () => {
    const echo = defineTool({ name: 'echo', description: 'e', parameters: OBJ, readOnly: true, execute: () => 'x' });
    const model = new FakeModel([toolsStep(call('echo', {}, 'c1')), textStep('done')]);
    const seen: (readonly Message[])[] = [];
    const { govern: _custom, ...withRealGovernor } = spec(model, registryWith(echo), { hooks: { beforeModel: (ctx) => void seen.push(ctx.messages) } });
    const result = await new AgentRunner().run(withRealGovernor);
    expect(result.messages).toHaveLength(5);
    // The clean history is returned unchanged by the governor, yet the held arrays stay as sent.
    expect(model.requests.map((r) => r.messages.length)).toEqual([2, 4]);
    expect(seen.map((m) => m.length)).toEqual([2, 4]);
    expect(model.requests[0].messages).not.toBe(result.messages);
  });

  it('passes the model to the governor: window, reply size and tokenizer come from the model table (real governor)', async () => {
    const passed: (string | undefined)[] = [];
    const recording: AgentRunSpec['govern'] = (messages, options) => {
      passed.push(options.model);
      return simpleGovern(messages, options);
    };
    await new AgentRunner().run(spec(scripted([textStep('ok')]), registryWith(), { model: 'gpt-4o', govern: recording }));
    expect(passed).toEqual(['gpt-4o']);

    const reports: unknown[] = [];
    const { govern: _custom, ...real } = spec(new FakeModel([textStep('done')]), registryWith(), { model: 'gpt-4o', onGoverned: (r) => void reports.push(r.report) });
    await new AgentRunner().run(real);
    const report = reports[0] as { budget: number; tokensAfter: number };
    expect(report.budget).toBe(128_000 - 16_384 - 1_024);
    expect(report.tokensAfter).toBe(createEstimator({ tokenizer: 'o200k_base' }).promptTokens(initial())[0]);
  });

  it('onGoverned sees every governed request (purpose, transcript, copy, report); a throw is a hook_error', async () => {
    const model = new FakeModel([{ content: '' }, { content: '' }, textStep('finally')]);
    const governed: GovernedRequest[] = [];
    const events: RunnerEvent[] = [];
    const result = await new AgentRunner().run(
      spec(model, registryWith(), {
        sessionKey: 'cli:x',
        runId: 'run-1',
        events: (e) => void events.push(e),
        onGoverned: (request) => {
          governed.push(request);
          throw new Error('inspector bug');
        },
      }),
    );
    expect(result.finalContent).toBe('finally');
    expect(governed.map((g) => g.purpose)).toEqual(['turn', 'turn', 'finalize_empty']);
    expect(governed.map((g) => g.iteration)).toEqual([0, 1, 1]);
    expect(governed.every((g) => g.sessionKey === 'cli:x' && g.runId === 'run-1' && g.inflightStartIndex === 2)).toBe(true);
    // The very arrays the provider received, and the report the governance event carried.
    governed.forEach((g, i) => expect(g.messages).toBe(model.requests[i].messages));
    const reports = events.filter((e) => e.type === 'governance').map((e) => (e as { report: unknown }).report);
    expect(governed.map((g) => g.report)).toEqual(reports);
    expect(governed[2].transcript.at(-1)).toEqual({ role: 'user', content: FINALIZATION_RETRY_PROMPT });
    expect(governed[0].transcript).toHaveLength(2);
    expect(events.filter((e) => e.type === 'hook_error').map((e) => (e as { hook: string }).hook)).toEqual(['onGoverned', 'onGoverned', 'onGoverned']);
  });

  it('beforeTool can deny a call; afterTool can rewrite a result; a throwing hook is reported, not fatal', async () => {
    let ran = 0;
    const rm = defineTool({ name: 'rm', description: 'r', parameters: OBJ, execute: () => { ran += 1; return 'removed'; } });
    const ls = defineTool({ name: 'ls', description: 'l', parameters: OBJ, execute: () => 'a b' });
    const events: RunnerEvent[] = [];
    const model = scripted([toolsStep(call('rm', {}, '1'), call('ls', {}, '2')), textStep('ok')]);
    const result = await new AgentRunner().run(spec(model, registryWith(rm, ls), {
      events: (e) => void events.push(e),
      hooks: [
        { beforeTool: ({ call: c }) => (c.function.name === 'rm' ? { content: 'Error: denied by policy', isError: true } : undefined) },
        { afterTool: ({ content }) => (content === 'a b' ? { content: 'a, b' } : undefined) },
        { beforeModel: () => { throw new Error('observer bug'); } },
      ],
    }));
    expect(ran).toBe(0);
    expect(result.messages[3].content).toBe('Error: denied by policy\n\n[Analyze the error above and try a different approach.]');
    expect(result.messages[4].content).toBe('a, b');
    expect(events.filter((e) => e.type === 'hook_error')).toHaveLength(2);
  });

  it('a critical hook that throws ends the run with a legal transcript', async () => {
    const echo = defineTool({ name: 'echo', description: 'e', parameters: OBJ, execute: () => 'x' });
    const model = scripted([toolsStep(call('echo', {}, '1'), call('echo', {}, '2')), textStep('never')]);
    const promise = new AgentRunner().run(spec(model, registryWith(echo), { hooks: { critical: true, afterTool: () => { throw new Error('audit failed'); } } }));
    const error = await promise.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    const partial = (error as { partialResult?: { messages: Message[] } }).partialResult;
    expect(partial && legalityProblems(partial.messages)).toEqual([]);
  });

  it('finalizeContent hooks form a pipeline', async () => {
    const model = scripted([textStep('hello')]);
    const result = await new AgentRunner().run(spec(model, registryWith(), { hooks: [{ finalizeContent: (c) => c.toUpperCase() }, { finalizeContent: (c) => `${c}!` }] }));
    expect(result.finalContent).toBe('HELLO!');
  });

  it('injections are appended as new user rows and the turn continues', async () => {
    const pending: Message[][] = [[{ role: 'user', content: 'also this' }]];
    const model = scripted([textStep('first'), textStep('second')]);
    const result = await new AgentRunner().run(spec(model, registryWith(), { injections: () => pending.shift() ?? [] }));
    expect(result.hadInjections).toBe(true);
    expect(result.messages.slice(2).map((m) => [m.role, m.content])).toEqual([
      ['assistant', 'first'],
      ['user', 'also this'],
      ['assistant', 'second'],
    ]);
    expect(result.finalContent).toBe('second');
  });

  it('tool progress and streamed reasoning become events; reasoning is stored on the message', async () => {
    const slow = defineTool({ name: 'slow', description: 's', parameters: OBJ, execute: (_a, ctx) => { ctx.emit({ type: 'progress', message: 'half way', progress: 1, total: 2 }); return 'done'; } });
    const events: RunnerEvent[] = [];
    const model = new ScriptedProvider([{ reasoning: 'I should call slow.', toolCalls: [{ id: 's1', name: 'slow', arguments: {} }] }, 'finished']);
    const result = await new AgentRunner().run(spec(model, registryWith(slow), { events: (e) => void events.push(e) }));
    expect(events.find((e) => e.type === 'reasoning_delta')).toMatchObject({ delta: 'I should call slow.' });
    expect(events.find((e) => e.type === 'tool_call_delta')).toMatchObject({ index: 0, id: 's1', name: 'slow' });
    expect(events.find((e) => e.type === 'tool_progress')).toMatchObject({ callId: 's1', name: 'slow', data: { type: 'progress', message: 'half way', tool: 'slow', toolCallId: 's1' } });
    expect(result.messages[2]).toMatchObject({ role: 'assistant', reasoning_content: 'I should call slow.' });
  });

  it('without provider usage, input tokens are the governor estimate and marked estimated', async () => {
    const model = new ScriptedProvider(['hello']);
    const result = await new AgentRunner().run({ initialMessages: initial(), provider: model, tools: registryWith(), contextWindowTokens: 8000 });
    expect(result.usage.estimated).toBe(true);
    expect(result.usage.inputTokens).toBeGreaterThan(0);
    expect(result.usage.contextTokens).toBe(result.usage.inputTokens);
    const reported = await new AgentRunner().run(spec(scripted([{ content: 'x', usage: { inputTokens: 50, outputTokens: 2 } }]), registryWith()));
    expect(reported.usage).toMatchObject({ inputTokens: 50, outputTokens: 2, requestCount: 1, contextTokens: 50 });
    expect(reported.usage.estimated).toBeUndefined();
  });

  it('think tags are split out of the content into reasoning_content', async () => {
    const model = scripted([textStep('<think>pondering</think>The answer.')]);
    const result = await new AgentRunner().run(spec(model, registryWith()));
    expect(result.messages.at(-1)).toEqual({ role: 'assistant', content: 'The answer.', reasoning_content: 'pondering' });
  });
});
