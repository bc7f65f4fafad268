// The reference's registry tests (reference-tests.md §C, and the end-to-end lines of §D), plus
// what we add: timeouts, cancellation, events, repair, scopes, frozen cached definitions.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { z } from 'zod';
import { ConfigurationError, SchemaError } from '@nanobot/schema';
import { Tool, createToolContext, defineTool, toolResult, type ToolContext } from '@nanobot/tools-core';
import { TOOL_ERROR_HINT, ToolRegistry } from './index.js';
import { deepFreeze, loadCases } from '@nanobot-internal/test-support';

const noParams = { type: 'object', properties: {} };

function namedTool(name: string, execute: () => unknown = () => `${name} ran`) {
  return defineTool({ name, description: `${name} tool`, parameters: noParams, execute: execute as never });
}

function readFileTool(calls: unknown[] = []) {
  return defineTool({
    name: 'read_file',
    description: 'Read a file',
    readOnly: true,
    parameters: {
      type: 'object',
      properties: { path: { type: 'string' }, offset: { type: 'integer', minimum: 1 } },
      required: ['path'],
      additionalProperties: false,
    },
    execute: (args) => {
      calls.push(args);
      return `content of ${String(args.path)}`;
    },
  });
}

describe('definitions (reference §C 50, 66)', () => {
  it('orders built-ins by name, then mcp_ tools by name', () => {
    const registry = new ToolRegistry();
    for (const name of ['mcp_git_status', 'write_file', 'mcp_fs_list', 'read_file']) registry.register(namedTool(name));
    expect(registry.definitions().map((d) => d.function.name)).toEqual(['read_file', 'write_file', 'mcp_fs_list', 'mcp_git_status']);
  });

  it('returns the same frozen array until the set changes; register and unregister invalidate', () => {
    const registry = new ToolRegistry();
    registry.register(namedTool('a'));
    const first = registry.definitions();
    expect(registry.definitions()).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    expect(() => (first as unknown[]).push({})).toThrow(TypeError);
    expect(() => {
      (first[0]!.function as { description: string }).description = 'changed';
    }).toThrow(TypeError);

    registry.register(namedTool('b'));
    const second = registry.definitions();
    expect(second).not.toBe(first);
    expect(second).toHaveLength(2);
    expect(registry.unregister('b')).toBe(true);
    const third = registry.definitions();
    expect(third).not.toBe(second);
    expect(third).toHaveLength(1);
    expect(registry.unregister('b')).toBe(false);
    expect(registry.definitions()).toBe(third);
  });

  it('filters by scope, each scope cached separately', () => {
    const registry = new ToolRegistry();
    registry.register(defineTool({ name: 'core_only', description: 'c', execute: () => '' }));
    registry.register(defineTool({ name: 'both', description: 'b', scopes: ['core', 'subagent'], execute: () => '' }));
    registry.register(defineTool({ name: 'mem', description: 'm', scopes: ['memory'], execute: () => '' }));
    expect(registry.definitions({ scope: 'subagent' }).map((d) => d.function.name)).toEqual(['both']);
    expect(registry.definitions({ scope: 'core' }).map((d) => d.function.name)).toEqual(['both', 'core_only']);
    expect(registry.definitions().map((d) => d.function.name)).toEqual(['both', 'core_only', 'mem']);
    expect(registry.definitions({ scope: 'memory' })).toBe(registry.definitions({ scope: 'memory' }));
  });

  it('invalidateDefinitions picks up a changed description', () => {
    class Dynamic extends Tool {
      override readonly name = 'dyn';
      override description = 'v1';
      override readonly parameters = null;
      execute() {
        return '';
      }
    }
    const tool = new Dynamic();
    const registry = new ToolRegistry();
    registry.register(tool);
    expect(registry.definitions()[0]!.function.description).toBe('v1');
    tool.description = 'v2';
    expect(registry.definitions()[0]!.function.description).toBe('v1');
    registry.invalidateDefinitions();
    expect(registry.definitions()[0]!.function.description).toBe('v2');
  });
});

describe('toolTraits: declared traits by name, for the governor', () => {
  const pager = () =>
    defineTool({
      name: 'pager',
      description: 'p',
      readOnly: true,
      compactable: true,
      rereadable: true,
      parameters: { type: 'object', properties: { offset: { type: 'integer' }, limit: { type: 'integer' } } },
      scopes: ['core', 'subagent'],
      execute: () => '',
    });

  it('lists every registered tool by name, traits from the declaration only', () => {
    const registry = new ToolRegistry();
    registry.register(pager());
    registry.register(readFileTool()); // named read_file, declares only readOnly
    registry.register(namedTool('exec'));
    const table = registry.toolTraits();
    expect(Object.keys(table).sort()).toEqual(['exec', 'pager', 'read_file']);
    expect(table.pager).toEqual({ readOnly: true, compactable: true, rereadable: { offsetParam: 'offset', limitParam: 'limit', unit: 'lines', firstOffset: 1 } });
    expect(table.read_file).toEqual({ readOnly: true, compactable: false, rereadable: null });
    expect(table.exec).toEqual({ readOnly: false, compactable: false, rereadable: null });
    expect(Object.isFrozen(table)).toBe(true);
    expect(Object.getPrototypeOf(table)).toBeNull();
  });

  it('returns the same table until the set changes; scopes are cached separately', () => {
    const registry = new ToolRegistry();
    registry.register(pager());
    registry.register(namedTool('core_only'));
    const first = registry.toolTraits();
    expect(registry.toolTraits()).toBe(first);
    expect(Object.keys(registry.toolTraits({ scope: 'subagent' }))).toEqual(['pager']);
    registry.register(namedTool('later'));
    const second = registry.toolTraits();
    expect(second).not.toBe(first);
    expect(Object.keys(second)).toContain('later');
    registry.unregister('later');
    expect(registry.toolTraits()).not.toBe(second);
    expect(Object.keys(registry.toolTraits())).not.toContain('later');
  });

  it('refuses at register a class tool whose traits cannot work', () => {
    class Broken extends Tool {
      readonly name = 'broken';
      readonly description = 'b';
      readonly parameters = noParams;
      override readonly rereadable = { offsetParam: 'offset', limitParam: 'limit', unit: 'lines' as const, firstOffset: 1 as const };
      execute() {
        return '';
      }
    }
    const registry = new ToolRegistry();
    expect(() => registry.register(new Broken())).toThrow(ConfigurationError);
    expect(registry.has('broken')).toBe(false);
  });
});

describe('registration', () => {
  it('rejects a duplicate name unless replace is asked for', () => {
    const registry = new ToolRegistry();
    registry.register(namedTool('x'));
    expect(() => registry.register(namedTool('x'))).toThrow(ConfigurationError);
    const replacement = namedTool('x', () => 'second');
    registry.register(replacement, { replace: true });
    expect(registry.get('x')).toBe(replacement);
    expect(registry.size).toBe(1);
  });

  it('rejects what is not a tool with a typed error', () => {
    const registry = new ToolRegistry();
    expect(() => registry.register({ name: 'x', execute: () => '' } as never)).toThrow(ConfigurationError);
    try {
      registry.register({} as never);
    } catch (err) {
      expect((err as ConfigurationError).code).toBe('CONFIGURATION_ERROR');
    }
  });

  it('names() keeps registration order; has/get are exact', () => {
    const registry = new ToolRegistry();
    for (const name of ['b', 'a', 'c']) registry.register(namedTool(name));
    expect(registry.names()).toEqual(['b', 'a', 'c']);
    expect(registry.has('a')).toBe(true);
    expect(registry.has('A')).toBe(false);
    expect(registry.get('A')).toBeUndefined();
  });
});

describe('prepareCall (reference §C 51–62)', () => {
  const registry = new ToolRegistry();
  const grep = defineTool({
    name: 'grep',
    description: 'grep',
    parameters: { type: 'object', properties: { pattern: { type: 'string' } }, required: ['pattern'] },
    execute: () => '',
  });
  const fetchTool = defineTool({
    name: 'web_fetch',
    description: 'fetch',
    parameters: { type: 'object', properties: { url: { type: 'string' } }, required: ['url'] },
    execute: () => '',
  });
  registry.register(readFileTool());
  registry.register(grep);
  registry.register(fetchTool);

  it('51: a near-miss name is not resolved: null tool, params untouched, suggestion in the text', () => {
    const params = deepFreeze({ path: 'foo.txt' });
    const prepared = registry.prepareCall('readFile', params);
    expect(prepared.ok).toBe(false);
    expect(prepared.tool).toBeNull();
    expect(prepared.params).toBe(params);
    if (prepared.ok) return;
    expect(prepared.error).toContain("Tool 'readFile' not found");
    expect(prepared.error).toContain("Did you mean 'read_file'?");
    expect(prepared.error).toContain('must match exactly');
  });

  it('52/53: normalised suggestions, and none for partial or ambiguous names', () => {
    for (const name of ['readFile', 'read-file', 'READ_FILE', 'read file', 'readfile']) {
      const p = registry.prepareCall(name, {});
      expect(!p.ok && p.suggestion).toBe('read_file');
    }
    for (const name of ['', 'foo', 'read', 'file', 'readfil', 'read_file_tool']) {
      const p = registry.prepareCall(name, {});
      expect(!p.ok && p.suggestion).toBeNull();
    }
    const ambiguous = new ToolRegistry();
    ambiguous.register(namedTool('read_file'));
    ambiguous.register(namedTool('readFile'));
    const p = ambiguous.prepareCall('READFILE', {});
    expect(!p.ok && p.suggestion).toBeNull();
  });

  it('54: suggestions follow register and unregister', () => {
    const r = new ToolRegistry();
    expect(!r.prepareCall('listDir', {}).ok && (r.prepareCall('listDir', {}) as { suggestion: unknown }).suggestion).toBeNull();
    r.register(namedTool('list_dir'));
    expect((r.prepareCall('listDir', {}) as { suggestion: unknown }).suggestion).toBe('list_dir');
    r.unregister('list_dir');
    expect((r.prepareCall('listDir', {}) as { suggestion: unknown }).suggestion).toBeNull();
  });

  it('55/62: a list payload is rejected with the exact reference text, params unchanged', () => {
    const params = deepFreeze(['TODO']);
    const prepared = registry.prepareCall('grep', params);
    expect(prepared.tool).toBe(grep);
    expect(prepared.params).toBe(params);
    expect(!prepared.ok && prepared.error).toBe(
      'Error: Tool \'grep\' parameters must be a JSON object, got list. Use named parameters like tool_name(param1="value1", param2="value2") matching the tool schema.',
    );
  });

  it('56: a JSON-object string is parsed', () => {
    const prepared = registry.prepareCall('read_file', '{"path":"foo.txt"}');
    expect(prepared.ok).toBe(true);
    expect(prepared.params).toEqual({ path: 'foo.txt' });
  });

  it('57: malformed JSON stays a string and is rejected when repair is off (the reference)', () => {
    const strict = new ToolRegistry({ repairArguments: false });
    strict.register(readFileTool());
    const prepared = strict.prepareCall('read_file', '{path:"foo.txt"}');
    expect(prepared.params).toBe('{path:"foo.txt"}');
    expect(!prepared.ok && prepared.error).toContain('must be a JSON object, got str');
  });

  it('57 (ours): with repair on (default) the same text is repaired and flagged', () => {
    const prepared = registry.prepareCall('read_file', '{path:"foo.txt"}');
    expect(prepared.ok).toBe(true);
    expect(prepared.params).toEqual({ path: 'foo.txt' });
    expect(prepared.repaired).toBe(true);
  });

  it('58/59/61: a bare URL, "true" and "null" are rejected as non-objects; null becomes {}', () => {
    for (const raw of ['https://example.com', 'true', 'null']) {
      const prepared = registry.prepareCall('web_fetch', raw);
      expect(prepared.ok).toBe(false);
      expect(prepared.params).toBe(raw);
      expect(!prepared.ok && prepared.error).toContain('must be a JSON object, got str');
    }
    const noop = new ToolRegistry();
    noop.register(namedTool('noop'));
    const prepared = noop.prepareCall('noop', null);
    expect(prepared.ok).toBe(true);
    expect(prepared.params).toEqual({});
  });

  it('60: {"arguments": "<json>"} is unwrapped when the tool has no arguments property', () => {
    const prepared = registry.prepareCall('read_file', { arguments: '{"path":"x.txt"}' });
    expect(prepared.ok).toBe(true);
    expect(prepared.params).toEqual({ path: 'x.txt' });
  });
});

describe('argument repair is bounded', () => {
  const registry = new ToolRegistry({ maxRepairChars: 200 });
  registry.register(readFileTool());

  it('a cut-off object is never completed: error with the schema, not a shorter call', () => {
    const prepared = registry.prepareCall('read_file', '{"path": "a.txt", "offset": 1');
    expect(prepared.ok).toBe(false);
    if (prepared.ok) return;
    expect(prepared.reason).toBe('malformed_json');
    expect(prepared.params).toBe('{"path": "a.txt", "offset": 1');
    expect(prepared.error).toContain("Error: Tool 'read_file' arguments are not valid JSON");
    expect(prepared.error).toContain('"required":["path"]');
  });

  it('text longer than maxRepairChars is not repaired', () => {
    const raw = `{path: "${'x'.repeat(300)}"}`;
    const prepared = registry.prepareCall('read_file', raw);
    expect(!prepared.ok && prepared.reason).toBe('malformed_json');
    expect(!prepared.ok && prepared.error).toContain('too long to repair');
  });

  it('never turns garbage into {} silently', () => {
    const prepared = registry.prepareCall('read_file', '{"a": 1} {"b": 2}');
    expect(prepared.ok).toBe(false);
    expect(prepared.params).not.toEqual({});
  });

  it('repaired arrays are still not objects', () => {
    const prepared = registry.prepareCall('read_file', "['a.txt',]");
    expect(!prepared.ok && prepared.error).toContain('got str');
  });
});

describe('execute (reference §C 63–65 and error conventions)', () => {
  it('63: an unknown argument is reported and the tool does not run', async () => {
    const calls: unknown[] = [];
    const registry = new ToolRegistry();
    registry.register(readFileTool(calls));
    const execution = await registry.execute('read_file', { path: 'a.txt', line_limit: 5 });
    expect(execution.isError).toBe(true);
    expect(execution.status).toBe('invalid_params');
    expect(execution.result.content).toContain('Invalid parameters');
    expect(execution.result.content).toContain('unexpected parameter line_limit');
    expect(calls).toEqual([]);
  });

  it('64: a plain string starting with "Error:" is a normal result', async () => {
    const registry = new ToolRegistry();
    registry.register(namedTool('t', () => 'Error: just text'));
    const execution = await registry.execute('t', {});
    expect(execution.isError).toBe(false);
    expect(execution.result.content).toBe('Error: just text');
  });

  it('65: toolResult.error comes back flagged, original text first, hint appended', async () => {
    const registry = new ToolRegistry();
    registry.register(namedTool('t', () => toolResult.error('Error: failed')));
    const execution = await registry.execute('t', {});
    expect(execution.isError).toBe(true);
    expect(execution.status).toBe('tool_error');
    expect(execution.result.content).toBe(`Error: failed${TOOL_ERROR_HINT}`);
    expect(String(execution.result.content)).toMatch(/^Error: failed/);
    expect(execution.result.content).toContain('[Analyze the error above');
  });

  it('a thrown error becomes "Error executing <name>: <message>" + hint, never an exception', async () => {
    const registry = new ToolRegistry();
    const boom = new TypeError('bad thing');
    registry.register(namedTool('t', () => Promise.reject(boom)));
    registry.register(namedTool('sync', () => {
      throw 'a string';
    }));
    const execution = await registry.execute('t', {});
    expect(execution.status).toBe('threw');
    expect(execution.error).toBe(boom);
    expect(execution.result.content).toBe(`Error executing t: bad thing${TOOL_ERROR_HINT}`);
    expect((await registry.execute('sync', {})).result.content).toBe(`Error executing sync: a string${TOOL_ERROR_HINT}`);
  });

  it('nothing returned gives the model a clear text; content blocks and error blocks keep their shape', async () => {
    const registry = new ToolRegistry();
    registry.register(namedTool('nothing', () => undefined));
    registry.register(namedTool('blank', () => '   '));
    registry.register(namedTool('blank_blocks', () => [{ type: 'text', text: ' ' }]));
    registry.register(namedTool('image', () => toolResult.image({ data: 'AAAA', mimeType: 'image/png', text: 'a pixel' })));
    registry.register(namedTool('img_err', () => toolResult.error([{ type: 'text', text: 'Error: cannot render' }])));
    registry.register(namedTool('obj', () => ({ files: ['a', 'b'], count: 2 })));
    for (const name of ['nothing', 'blank', 'blank_blocks']) {
      const execution = await registry.execute(name, {});
      expect(execution.isError).toBe(false);
      expect(execution.result.content).toBe(`(${name} completed with no output)`);
    }
    const image = await registry.execute('image', {});
    expect(image.result.content).toEqual([
      { type: 'text', text: 'a pixel' },
      { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
    ]);
    const imgErr = await registry.execute('img_err', {});
    expect(imgErr.result.content).toEqual([
      { type: 'text', text: 'Error: cannot render' },
      { type: 'text', text: TOOL_ERROR_HINT },
    ]);
    expect((await registry.execute('obj', {})).result.content).toBe('{"files":["a","b"],"count":2}');
  });

  it('a tool that hangs past its timeout gives a timeout result and its signal is aborted', async () => {
    let seen: AbortSignal | undefined;
    const registry = new ToolRegistry();
    registry.register(
      defineTool({
        name: 'hang',
        description: 'never finishes',
        timeoutMs: 20,
        execute: (_args, ctx) => {
          seen = ctx.signal;
          return new Promise<string>(() => {});
        },
      }),
    );
    const execution = await registry.execute('hang', {});
    expect(execution.status).toBe('timeout');
    expect(execution.isError).toBe(true);
    expect(execution.result.content).toBe(
      `Error executing hang: the tool did not finish within 20 ms and was stopped${TOOL_ERROR_HINT}`,
    );
    expect(seen?.aborted).toBe(true);
  });

  it('per-call timeout overrides; a late rejection after timeout is swallowed', async () => {
    const registry = new ToolRegistry({ defaultTimeoutMs: 0 });
    let reject!: (e: Error) => void;
    registry.register(
      defineTool({
        name: 'slow',
        description: 's',
        execute: () => new Promise<string>((_, r) => (reject = r)),
      }),
    );
    const execution = await registry.execute('slow', {}, createToolContext(), { timeoutMs: 1000 * 10 ** -3 });
    expect(execution.status).toBe('timeout');
    reject(new Error('late'));
    await new Promise((r) => setImmediate(r));
  });

  it('the caller cancelling via ctx.signal ends the call with a cancelled result', async () => {
    const controller = new AbortController();
    let started!: () => void;
    const running = new Promise<void>((r) => (started = r));
    const registry = new ToolRegistry();
    let toolSignal: AbortSignal | undefined;
    registry.register(
      defineTool({
        name: 'wait',
        description: 'w',
        execute: (_a, ctx) => {
          toolSignal = ctx.signal;
          started();
          return new Promise<string>(() => {});
        },
      }),
    );
    const pending = registry.execute('wait', {}, createToolContext({ signal: controller.signal }));
    await running;
    controller.abort(new Error('user pressed stop'));
    const execution = await pending;
    expect(execution.status).toBe('aborted');
    expect(execution.result.content).toBe(`Error executing wait: the call was cancelled${TOOL_ERROR_HINT}`);
    expect(toolSignal?.aborted).toBe(true);

    // Already aborted: the tool never starts.
    let ran = false;
    registry.register(namedTool('never', () => (ran = true)));
    const again = await registry.execute('never', {}, createToolContext({ signal: controller.signal }));
    expect(again.status).toBe('aborted');
    expect(ran).toBe(false);
  });

  it('events reach the sink stamped with tool and call id; a throwing sink cannot fail the tool; late events are dropped', async () => {
    const events: unknown[] = [];
    let emitLater!: () => void;
    const registry = new ToolRegistry();
    registry.register(
      defineTool({
        name: 'progress',
        description: 'p',
        execute: (_a, ctx) => {
          ctx.emit({ type: 'progress', message: 'half', progress: 1, total: 2 });
          emitLater = () => ctx.emit({ type: 'progress', message: 'too late' });
          return 'done';
        },
      }),
    );
    const ctx = createToolContext({ emit: (e) => events.push(e) });
    const execution = await registry.execute('progress', {}, ctx, { toolCallId: 'call_1' });
    expect(execution.result.content).toBe('done');
    expect(events).toEqual([{ type: 'progress', message: 'half', progress: 1, total: 2, tool: 'progress', toolCallId: 'call_1' }]);
    emitLater();
    expect(events).toHaveLength(1);

    const throwing = createToolContext({
      emit: () => {
        throw new Error('sink broke');
      },
    });
    expect((await registry.execute('progress', {}, throwing)).result.content).toBe('done');
  });

  it('reports duration and the prepared params', async () => {
    const registry = new ToolRegistry();
    registry.register(readFileTool());
    const execution = await registry.execute('read_file', '{"path":"a"}');
    expect(execution.params).toEqual({ path: 'a' });
    expect(execution.durationMs).toBeGreaterThanOrEqual(0);
    expect(execution.status).toBe('ok');
  });
});

describe('zod tools through the registry', () => {
  const search = defineTool({
    name: 'search',
    description: 'Search',
    parameters: z.object({
      query: z.string().min(2),
      count: z.number().int().min(1).max(10).default(5),
      mode: z.enum(['fast', 'full']).optional(),
    }),
    execute: ({ query, count, mode }) => `${query}:${count}:${mode ?? '-'}`,
  });
  const registry = new ToolRegistry();
  registry.register(search);

  it('70: string numbers are cast, defaults applied by zod, args typed', async () => {
    expect((await registry.execute('search', { query: 'hello', count: '3' })).result.content).toBe('hello:3:-');
    expect((await registry.execute('search', { query: 'hello' })).result.content).toBe('hello:5:-');
  });

  it('70: invalid values give the reference messages', async () => {
    const execution = await registry.execute('search', { query: 'h', count: 3 });
    expect(execution.isError).toBe(true);
    expect(execution.result.content).toContain("Error: Invalid parameters for tool 'search': query must be at least 2 chars");
  });
});

describe('tool context is passed, never shared (architecture invariant 3)', () => {
  // A message-like tool: where it delivers depends only on the call's context. The two sessions'
  // calls are interleaved so each call starts before the other one finishes.
  it('two sessions running at once through the same tool instances never cross', async () => {
    const outbox: { channel: string; chatId: string; text: string; sessionKey: string }[] = [];
    const gates = new Map<string, () => void>();
    const message = defineTool({
      name: 'message',
      description: 'Send a message to the current chat',
      parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
      execute: async ({ text }: { text: string }, ctx: ToolContext) => {
        await new Promise<void>((resolve) => gates.set(`${ctx.sessionKey}:${text}`, resolve));
        outbox.push({ channel: ctx.channel, chatId: ctx.chatId, text, sessionKey: ctx.sessionKey });
        return `sent to ${ctx.channel}:${ctx.chatId}`;
      },
    });
    const registry = new ToolRegistry();
    registry.register(message);
    const a = createToolContext({ channel: 'telegram', chatId: 'alice' });
    const b = createToolContext({ channel: 'slack', chatId: 'bob' });

    const calls = [
      registry.execute('message', { text: 'a1' }, a),
      registry.execute('message', { text: 'b1' }, b),
      registry.execute('message', { text: 'a2' }, a),
      registry.execute('message', { text: 'b2' }, b),
    ];
    await new Promise((r) => setImmediate(r));
    expect(gates.size).toBe(4); // all four are in flight at once
    // Release in an order that interleaves the sessions differently from the start order.
    for (const key of ['slack:bob:b2', 'telegram:alice:a1', 'slack:bob:b1', 'telegram:alice:a2']) {
      gates.get(key)!();
      await new Promise((r) => setImmediate(r));
    }
    const results = await Promise.all(calls);
    expect(results.map((r) => r.result.content)).toEqual([
      'sent to telegram:alice',
      'sent to slack:bob',
      'sent to telegram:alice',
      'sent to slack:bob',
    ]);
    for (const sent of outbox) {
      const own = sent.text.startsWith('a') ? a : b;
      expect([sent.channel, sent.chatId, sent.sessionKey]).toEqual([own.channel, own.chatId, own.sessionKey]);
    }
    expect(outbox.map((m) => m.text)).toEqual(['b2', 'a1', 'b1', 'a2']);
  });

  it('property: any number of sessions, any completion order, every delivery goes to its own chat', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 4 }), fc.string({ maxLength: 8 })), { minLength: 1, maxLength: 12 }),
        fc.func(fc.integer()),
        async (calls, order) => {
          const outbox: { session: string; chatId: string; text: string }[] = [];
          const gates: (() => void)[] = [];
          const registry = new ToolRegistry();
          registry.register(
            defineTool({
              name: 'message',
              description: 'm',
              parameters: { type: 'object', properties: { text: { type: 'string' } } },
              execute: async ({ text }: { text: string }, ctx: ToolContext) => {
                await new Promise<void>((resolve) => gates.push(resolve));
                outbox.push({ session: ctx.sessionKey, chatId: ctx.chatId, text });
                return ctx.chatId;
              },
            }),
          );
          const contexts = [0, 1, 2, 3, 4].map((i) => createToolContext({ channel: 'ch', chatId: `chat${i}` }));
          const pending = calls.map(([who, text]) => registry.execute('message', { text: `${who}|${text}` }, contexts[who]));
          await new Promise((r) => setImmediate(r));
          const release = gates.map((g, i) => ({ g, k: order(i) }));
          release.sort((x, y) => x.k - y.k);
          for (const { g } of release) g();
          const results = await Promise.all(pending);
          results.forEach((r, i) => expect(r.result.content).toBe(`chat${calls[i]![0]}`));
          for (const sent of outbox) {
            const who = Number(sent.text.split('|')[0]);
            expect(sent.chatId).toBe(`chat${who}`);
            expect(sent.session).toBe(`ch:chat${who}`);
          }
        },
      ),
      { numRuns: 50 },
    );
  });

  it('the context a tool receives is frozen', async () => {
    let received: ToolContext | undefined;
    const registry = new ToolRegistry();
    registry.register(
      defineTool({ name: 'grab', description: 'g', execute: (_a, ctx) => void (received = ctx) }),
    );
    await registry.execute('grab', {}, createToolContext({ chatId: 'c1' }));
    expect(Object.isFrozen(received)).toBe(true);
    expect(() => {
      (received as { chatId: string }).chatId = 'other';
    }).toThrow(TypeError);
  });
});

describe('executePrepared', () => {
  it('runs a prepared call without preparing again; a failed preparation is returned as its error', async () => {
    const calls: unknown[] = [];
    const registry = new ToolRegistry();
    registry.register(readFileTool(calls));
    const prepared = registry.prepareCall('read_file', '{"path":"p"}');
    const execution = await registry.executePrepared(prepared, createToolContext(), { toolCallId: 'c' });
    expect(execution.result.content).toBe('content of p');
    expect(calls).toEqual([{ path: 'p' }]);
    const bad = await registry.executePrepared(registry.prepareCall('nope', {}));
    expect(bad.status).toBe('not_found');
    expect(bad.result.content).toBe(`Error: Tool 'nope' not found. Available: read_file${TOOL_ERROR_HINT}`);
  });
});

describe('prepareCall and execute never throw, never mutate (property)', () => {
  const cases = loadCases('tool_calls/prepare_call.json');
  const registry = new ToolRegistry({ defaultTimeoutMs: 0 });
  for (const spec of cases[0]!.config.registry) {
    registry.register(defineTool({ name: spec.name, description: 'd', parameters: spec.parameters, execute: (a) => JSON.stringify(a) }));
  }
  const names = registry.names();
  const payload = fc.oneof(
    fc.jsonValue(),
    fc.json(),
    fc.string(),
    fc.dictionary(fc.constantFrom('path', 'offset', 'limit', 'query', 'count', 'mode', 'meta', 'arguments', 'x'), fc.jsonValue()),
    fc.record({ arguments: fc.oneof(fc.json(), fc.jsonValue()) }),
  );
  const name = fc.oneof(fc.constantFrom(...names), fc.string(), fc.constantFrom('READ_FILE', 'readFile', 'mcp-git-status'));

  it('always answers with data; ok ⇔ a known name with valid arguments; raw input unchanged', async () => {
    await fc.assert(
      fc.asyncProperty(name, payload, async (n, raw) => {
        const input = typeof raw === 'object' && raw !== null ? deepFreeze(structuredClone(raw)) : raw;
        const before = JSON.stringify(input);
        const prepared = registry.prepareCall(n, input);
        const execution = await registry.execute(n, input);
        expect(JSON.stringify(input)).toBe(before);
        expect(execution.isError).toBe(!prepared.ok);
        if (!registry.has(n)) {
          expect(prepared.tool).toBeNull();
          expect(execution.status).toBe('not_found');
        }
        if (execution.isError) expect(String(execution.result.content).endsWith(TOOL_ERROR_HINT)).toBe(true);
        else expect(typeof execution.result.content).toBe('string');
      }),
      { numRuns: 400 },
    );
  });
});

describe('register fails fast on an unusable schema', () => {
  it('throws the SchemaError at register time', () => {
    class Broken extends Tool {
      override readonly name = 'broken';
      override readonly description = 'd';
      override get parameters() {
        return [] as never;
      }
      execute() {
        return '';
      }
    }
    expect(() => new ToolRegistry().register(new Broken())).toThrow(SchemaError);
  });
});
