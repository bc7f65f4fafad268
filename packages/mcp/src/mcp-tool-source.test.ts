import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getEventListeners } from 'node:events';
import { ToolRegistry } from '@nanobot/registry';
import { createToolContext, defineTool, type ToolResult } from '@nanobot/tools-core';
import { McpToolSource, type McpSourceEvent, type McpToolSourceOptions } from './mcp-tool-source.js';
import { McpClosedError } from './mcp-errors.js';
import { stdioFixture, startHttpFixture, type HttpFixture } from '../test/fixtures/fixture.js';
import { readFixtureLog, waitFor } from '../test/fixtures/wait-for.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function tempLog(): string {
  const dir = mkdtempSync(join(tmpdir(), 'nanobot-mcp-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return join(dir, 'calls.jsonl');
}

function builtins(): ToolRegistry {
  const registry = new ToolRegistry();
  for (const name of ['read_file', 'exec']) {
    registry.register(defineTool({ name, description: `${name} tool`, execute: () => 'ok' }));
  }
  return registry;
}

function makeSource(options: Partial<McpToolSourceOptions> & Pick<McpToolSourceOptions, 'servers'>) {
  const events: McpSourceEvent[] = [];
  const registry = options.registry ?? builtins();
  const source = new McpToolSource({
    reconnect: { initialDelayMs: 20, maxDelayMs: 200 },
    ...options,
    registry,
    onEvent: (event) => events.push(event),
  });
  cleanups.push(() => source.close());
  return { source, registry: registry as ToolRegistry, events };
}

function text(result: ToolResult): string {
  return typeof result.content === 'string' ? result.content : JSON.stringify(result.content);
}

const FIXTURE_TOOLS = [
  'add', 'calls', 'choice', 'cwd', 'echo', 'explode', 'fail', 'image', 'pid', 'redescribe', 'slow', 'struct_only', 'toggle',
];

describe('McpToolSource over stdio', () => {
  it('registers every server tool as mcp_<server>_<tool>, after the built-ins, with the server schema', async () => {
    const { source, registry } = makeSource({ servers: { fx: stdioFixture() } });
    const report = await source.start();
    expect(report).toEqual({ connected: ['fx'], failed: [], disabled: [] });
    const names = registry.definitions().map((d) => d.function.name);
    expect(names).toEqual(['exec', 'read_file', ...FIXTURE_TOOLS.map((t) => `mcp_fx_${t}`)]);
    const echo = registry.definitions().find((d) => d.function.name === 'mcp_fx_echo')!;
    expect(echo.function.description).toBe('Echoes lower-case text, optionally repeated.');
    expect(echo.function.parameters).toEqual({
      type: 'object',
      properties: {
        text: { type: 'string', pattern: '^[a-z ]+$', minLength: 1 },
        times: { type: 'integer', minimum: 1, maximum: 3 },
      },
      required: ['text'],
      additionalProperties: false,
    });
    expect(source.tools().map((t) => [t.name, t.server, t.toolName])).toContainEqual(['mcp_fx_echo', 'fx', 'echo']);
    // Annotations: echo says readOnlyHint true → compactable; toggle says false; add says nothing.
    const traits = registry.toolTraits();
    expect([traits.mcp_fx_echo.compactable, traits.mcp_fx_toggle.compactable, traits.mcp_fx_add.compactable]).toEqual([true, false, false]);
    expect(traits.mcp_fx_echo.readOnly).toBe(false);
    expect(source.status()).toEqual([{ server: 'fx', transport: 'stdio', state: 'connected', toolCount: FIXTURE_TOOLS.length }]);
  });

  it('maps text, structured, image, isError and server-error results through the registry', async () => {
    const { source, registry } = makeSource({ servers: { fx: stdioFixture() } });
    await source.start();
    const run = (name: string, args: unknown) => registry.execute(`mcp_fx_${name}`, args);

    const echo = await run('echo', '{"text": "hi", "times": "2"}');
    expect(echo.status).toBe('ok');
    expect(text(echo.result)).toBe('hi hi');

    const add = await run('add', { a: 1, b: 2.5 });
    expect(text(add.result)).toBe('{"sum":3.5}');

    const structured = await run('struct_only', {});
    expect(text(structured.result)).toBe('{"ok":true,"items":[1,2]}');

    const image = await run('image', {});
    expect(image.result.content).toEqual([
      { type: 'text', text: 'a red pixel' },
      { type: 'image_url', image_url: { url: expect.stringMatching(/^data:image\/png;base64,iVBOR/) } },
    ]);

    const fail = await run('fail', {});
    expect(fail.status).toBe('tool_error');
    expect(text(fail.result)).toBe('the tool failed on purpose\n\n[Analyze the error above and try a different approach.]');

    const explode = await run('explode', {});
    expect(explode.isError).toBe(true);
    expect(text(explode.result)).toContain("Error: MCP server 'fx' rejected the call to 'explode': MCP error -32603: kaboom");
  });

  it('rejects schema violations before the call: the server never sees them', async () => {
    const log = tempLog();
    const { source, registry } = makeSource({ servers: { fx: stdioFixture({ FIXTURE_LOG: log }) } });
    await source.start();
    const bad = [
      ['mcp_fx_echo', { text: 'UPPER case' }], // pattern
      ['mcp_fx_echo', { text: 'ok', extra: 1 }], // additionalProperties: false
      ['mcp_fx_echo', { text: 'ok', times: 9 }], // maximum
      ['mcp_fx_echo', {}], // required
      ['mcp_fx_choice', { pick: 'green' }], // oneOf
      ['mcp_fx_slow', { ms: -5 }], // minimum
    ] as const;
    for (const [name, args] of bad) {
      const result = await registry.execute(name, args);
      expect(result.status, `${name} ${JSON.stringify(args)}`).toBe('invalid_params');
      expect(text(result.result)).toContain(`Error: Invalid parameters for tool '${name}'`);
    }
    const good = await registry.execute('mcp_fx_echo', { text: 'fine' });
    expect(text(good.result)).toBe('fine');
    expect(readFixtureLog(log).map((entry) => [entry.event, entry.name, entry.args])).toEqual([
      ['call', 'echo', { text: 'fine' }],
    ]);
  });

  it('cancels a slow call through the context signal and tells the server', async () => {
    const log = tempLog();
    const { source, registry } = makeSource({ servers: { fx: stdioFixture({ FIXTURE_LOG: log }) } });
    await source.start();

    const controller = new AbortController();
    const pending = registry.execute('mcp_fx_slow', { ms: 600_000 }, createToolContext({ signal: controller.signal }));
    await waitFor(() => readFixtureLog(log).some((e) => e.event === 'call' && e.name === 'slow'), 'the call to reach the server');
    controller.abort();
    const result = await pending;
    expect(result.status).toBe('aborted');
    await waitFor(() => readFixtureLog(log).some((e) => e.event === 'cancelled'), 'the server to see the cancellation');

    // Without a registry in between, the tool's own result says what happened.
    const direct = new AbortController();
    const call = source.get('mcp_fx_slow')!.execute({ ms: 600_000 }, createToolContext({ signal: direct.signal }));
    await waitFor(() => readFixtureLog(log).filter((e) => e.event === 'call').length === 2, 'the second call');
    direct.abort();
    const own = await call;
    expect(own).toMatchObject({ isError: true, content: "Error: MCP tool 'slow' on server 'fx' was cancelled" });
    await waitFor(() => readFixtureLog(log).filter((e) => e.event === 'cancelled').length === 2, 'the second cancellation');

    // The connection is still good.
    expect(text((await registry.execute('mcp_fx_echo', { text: 'still here' })).result)).toBe('still here');
  });

  it('stops a call at the per-call timeout with a clear error and cancels it on the server', async () => {
    const log = tempLog();
    const { source, registry } = makeSource({
      servers: { fx: { ...stdioFixture({ FIXTURE_LOG: log }), toolTimeout: 0.5 } },
    });
    await source.start();
    const result = await registry.execute('mcp_fx_slow', { ms: 600_000 });
    expect(result.isError).toBe(true);
    expect(text(result.result)).toContain("Error: MCP tool 'slow' on server 'fx' timed out after 0.5s");
    await waitFor(() => readFixtureLog(log).some((e) => e.event === 'cancelled'), 'the server to see the cancellation');
    expect(text((await registry.execute('mcp_fx_echo', { text: 'after' })).result)).toBe('after');
  });

  it('reports a server killed mid-call, reconnects, and the next call works', async () => {
    const log = tempLog();
    const { source, registry, events } = makeSource({ servers: { fx: stdioFixture({ FIXTURE_LOG: log }) } });
    await source.start();
    const firstPid = Number(text((await registry.execute('mcp_fx_pid', {})).result));
    const definitions = registry.definitions();

    const pending = registry.execute('mcp_fx_slow', { ms: 600_000 });
    await waitFor(() => readFixtureLog(log).some((e) => e.name === 'slow'), 'the call to reach the server');
    process.kill(firstPid, 'SIGKILL');
    const result = await pending;
    expect(result.isError).toBe(true);
    expect(text(result.result)).toContain("Error: MCP server 'fx' disconnected during the call to 'slow'");
    // The tools stay registered while the server is away: definitions (and the prompt cache) do not change.
    expect(registry.has('mcp_fx_slow')).toBe(true);

    const next = await registry.execute('mcp_fx_pid', {});
    expect(next.status).toBe('ok');
    const secondPid = Number(text(next.result));
    expect(secondPid).not.toBe(firstPid);
    // Same tools after the restart: the very same cached definitions list (prompt cache intact).
    expect(registry.definitions()).toBe(definitions);
    expect(events.map((e) => e.type)).toEqual(expect.arrayContaining(['disconnected']));
    expect(events.filter((e) => e.type === 'connected').map((e) => (e as { reconnect: boolean }).reconnect)).toEqual([
      false,
      true,
    ]);
  });

  it('reconnects on demand when background reconnects are off', async () => {
    const { source, registry, events } = makeSource({ servers: { fx: stdioFixture() }, reconnect: false });
    await source.start();
    const pid = Number(text((await registry.execute('mcp_fx_pid', {})).result));
    process.kill(pid, 'SIGKILL');
    await waitFor(() => events.some((e) => e.type === 'disconnected'), 'the disconnect');
    expect(source.status()[0].state).toBe('disconnected');
    const next = await registry.execute('mcp_fx_echo', { text: 'back' });
    expect(text(next.result)).toBe('back');
    expect(source.status()[0].state).toBe('connected');
  });

  it('lets the caller cancel a call that is waiting for a reconnect', async () => {
    const hangFlag = `${tempLog()}.hang`;
    const { source, registry, events } = makeSource({
      servers: { fx: stdioFixture({ FIXTURE_HANG_IF_EXISTS: hangFlag }) },
      reconnect: false,
      connectTimeoutMs: 60_000,
    });
    await source.start();
    const pid = Number(text((await registry.execute('mcp_fx_pid', {})).result));
    writeFileSync(hangFlag, 'stuck');
    process.kill(pid, 'SIGKILL');
    await waitFor(() => events.some((e) => e.type === 'disconnected'), 'the disconnect');
    const controller = new AbortController();
    const pending = source.get('mcp_fx_echo')!.execute({ text: 'x' }, createToolContext({ signal: controller.signal }));
    await waitFor(() => source.status()[0].state === 'connecting', 'the reconnect to start');
    controller.abort();
    expect(await pending).toMatchObject({ isError: true, content: "Error: MCP tool 'echo' on server 'fx' was cancelled" });
  });

  it('answers a call cut short by close() with a clear error', async () => {
    const log = tempLog();
    const { source, registry } = makeSource({ servers: { fx: stdioFixture({ FIXTURE_LOG: log }) } });
    await source.start();
    const tool = source.get('mcp_fx_slow')!;
    const pending = tool.execute({ ms: 600_000 }, createToolContext());
    await waitFor(() => readFixtureLog(log).some((e) => e.name === 'slow'), 'the call to reach the server');
    await source.close();
    expect(await pending).toMatchObject({ isError: true, content: "Error: MCP server 'fx' was shut down during the call to 'slow'" });
    expect(registry.has('mcp_fx_slow')).toBe(false);
  });

  it('follows tools/list_changed: new tools registered, removed ones unregistered', async () => {
    const { source, registry, events } = makeSource({ servers: { fx: stdioFixture() } });
    await source.start();
    const before = registry.definitions();
    expect(registry.has('mcp_fx_late')).toBe(false);

    expect(text((await registry.execute('mcp_fx_toggle', {})).result)).toBe('late visible');
    await waitFor(() => registry.has('mcp_fx_late'), 'mcp_fx_late to be registered');
    expect(events).toContainEqual({ type: 'tools-changed', server: 'fx', added: ['mcp_fx_late'], removed: [], updated: [] });
    expect(text((await registry.execute('mcp_fx_late', {})).result)).toBe('ran late');
    const after = registry.definitions().map((d) => d.function.name);
    expect(after.indexOf('mcp_fx_late')).toBe(after.indexOf('mcp_fx_image') + 1);

    await registry.execute('mcp_fx_toggle', {});
    await waitFor(() => !registry.has('mcp_fx_late'), 'mcp_fx_late to be unregistered');
    expect(events).toContainEqual({ type: 'tools-changed', server: 'fx', added: [], removed: ['mcp_fx_late'], updated: [] });
    expect(registry.definitions()).toEqual(before);
  });

  it('replaces a tool whose description changed on list_changed', async () => {
    const { source, registry, events } = makeSource({ servers: { fx: stdioFixture() } });
    await source.start();
    const before = registry.definitions();
    await registry.execute('mcp_fx_redescribe', {});
    await waitFor(() => events.some((e) => e.type === 'tools-changed' && e.updated.length > 0), 'the change');
    expect(events.filter((e) => e.type === 'tools-changed').slice(1)).toEqual([
      { type: 'tools-changed', server: 'fx', added: [], removed: [], updated: ['mcp_fx_echo'] },
    ]);
    const after = registry.definitions();
    expect(after).not.toBe(before);
    expect(after.find((d) => d.function.name === 'mcp_fx_echo')!.function.description).toBe(
      'Echoes lower-case text, optionally repeated. (revision 1)',
    );
    expect(after.map((d) => d.function.name)).toEqual(before.map((d) => d.function.name));
  });

  it('starts stdio servers in the configured cwd', async () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'nanobot-mcp-cwd-')));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const { source, registry } = makeSource({ servers: { fx: { ...stdioFixture(), cwd: dir } } });
    await source.start();
    expect(text((await registry.execute('mcp_fx_cwd', {})).result)).toBe(dir);
  });

  it('runs concurrent calls on one connection', async () => {
    const { source, registry } = makeSource({ servers: { fx: stdioFixture() } });
    await source.start();
    const words = ['one', 'two', 'three', 'four', 'five', 'six'];
    const results = await Promise.all(words.map((word) => registry.execute('mcp_fx_echo', { text: word })));
    expect(results.map((r) => text(r.result))).toEqual(words);
  });

  it('reports names that collide after sanitising and resolves them the same way whoever answers first', async () => {
    const winners: string[][] = [];
    for (const [slow, fast] of [
      ['my.srv', 'my_srv'],
      ['my_srv', 'my.srv'],
    ]) {
      const logs = { 'my.srv': tempLog(), my_srv: tempLog() };
      const { source, registry, events } = makeSource({
        servers: {
          [slow]: stdioFixture({ FIXTURE_LOG: logs[slow as keyof typeof logs], FIXTURE_LIST_DELAY_MS: '300' }),
          [fast]: stdioFixture({ FIXTURE_LOG: logs[fast as keyof typeof logs] }),
        },
      });
      await source.start();
      const collisions = events.filter((e) => e.type === 'collision');
      expect(collisions).toHaveLength(FIXTURE_TOOLS.length);
      expect(collisions[0]).toEqual({
        type: 'collision',
        name: 'mcp_my_srv_add',
        kept: { server: 'my.srv', tool: 'add' },
        dropped: { server: 'my_srv', tool: 'add' },
      });
      await registry.execute('mcp_my_srv_echo', { text: 'who' });
      winners.push(
        Object.entries(logs)
          .filter(([, file]) => readFixtureLog(file).some((e) => e.name === 'echo'))
          .map(([server]) => server),
      );
      expect(registry.definitions().filter((d) => d.function.name.startsWith('mcp_'))).toHaveLength(FIXTURE_TOOLS.length);
      await source.close();
    }
    expect(winners).toEqual([['my.srv'], ['my.srv']]);
  });

  it('reports tools of one server that collide after sanitising', async () => {
    const { source, registry, events } = makeSource({
      servers: { fx: stdioFixture({ FIXTURE_EXTRA_TOOLS: 'a.b,a b,a/b' }) },
    });
    await source.start();
    expect(events.filter((e) => e.type === 'collision')).toEqual([
      { type: 'collision', name: 'mcp_fx_a_b', kept: { server: 'fx', tool: 'a b' }, dropped: { server: 'fx', tool: 'a.b' } },
      { type: 'collision', name: 'mcp_fx_a_b', kept: { server: 'fx', tool: 'a b' }, dropped: { server: 'fx', tool: 'a/b' } },
    ]);
    expect(text((await registry.execute('mcp_fx_a_b', {})).result)).toBe('ran a b');
  });

  it('keeps definitions byte-identical across restarts, answer orders and config key order', async () => {
    const snapshots: string[] = [];
    const runs = [
      { alpha: { FIXTURE_LIST_DELAY_MS: '300' }, beta: { FIXTURE_REVERSE: '1' } },
      { beta: { FIXTURE_LIST_DELAY_MS: '300' }, alpha: { FIXTURE_REVERSE: '1', FIXTURE_PAGE_SIZE: '3' } },
    ];
    for (const run of runs) {
      const servers = Object.fromEntries(Object.entries(run).map(([name, env]) => [name, stdioFixture(env)]));
      const { source, registry } = makeSource({ servers });
      await source.start();
      snapshots.push(JSON.stringify(registry.definitions()));
      await source.close();
    }
    expect(snapshots[1]).toBe(snapshots[0]);
    const names = (JSON.parse(snapshots[0]) as { function: { name: string } }[]).map((d) => d.function.name);
    expect(names.slice(0, 3)).toEqual(['exec', 'read_file', 'mcp_alpha_add']);
    expect(names).toHaveLength(2 + 2 * FIXTURE_TOOLS.length);
  });

  it('reports a server that fails to start and skips it; the others work', async () => {
    const { source, registry, events } = makeSource({
      servers: {
        good: stdioFixture(),
        broken: stdioFixture({ FIXTURE_EXIT_ON_START: '3' }),
        missing: { command: '/nonexistent/mcp-server' },
      },
    });
    const report = await source.start();
    expect(report.connected).toEqual(['good']);
    expect(report.failed.map((f) => f.server)).toEqual(['broken', 'missing']);
    expect(report.failed[0].error.message).toContain("MCP server 'broken' failed to start");
    expect(report.failed[0].error.message).toContain('refusing to start');
    expect(report.failed[0].error.code).toBe('MCP_CONNECTION_FAILED');
    expect(report.failed[1].error.message).toContain('ENOENT');
    expect(events.filter((e) => e.type === 'connect-failed').map((e) => e.server).sort()).toEqual(['broken', 'missing']);
    expect(registry.names().filter((n) => n.startsWith('mcp_'))).toHaveLength(FIXTURE_TOOLS.length);
    expect(text((await registry.execute('mcp_good_echo', { text: 'fine' })).result)).toBe('fine');
    expect(source.status().map((s) => [s.server, s.state, s.error !== undefined])).toEqual([
      ['broken', 'failed', true],
      ['good', 'connected', false],
      ['missing', 'failed', true],
    ]);
  });

  it('close() unregisters the tools and ends the server process', async () => {
    const builtin = builtins();
    const { source, registry } = makeSource({ servers: { fx: stdioFixture() }, registry: builtin });
    await source.start();
    const pid = Number(text((await registry.execute('mcp_fx_pid', {})).result));
    await source.close();
    expect(registry.names()).toEqual(['read_file', 'exec']);
    expect(() => process.kill(pid, 0)).toThrow(/ESRCH/);
    await source.close();
    await expect(source.start()).rejects.toBeInstanceOf(McpClosedError);
  });

  it('in lazy mode spawns nothing until ready()', async () => {
    const log = tempLog();
    const { source, registry } = makeSource({ servers: { fx: stdioFixture({ FIXTURE_LOG: log }) }, connect: 'lazy' });
    expect(await source.start()).toEqual({ connected: [], failed: [], disabled: [] });
    expect(source.status()[0].state).toBe('idle');
    expect(registry.names()).toEqual(['read_file', 'exec']);
    const [first, second] = await Promise.all([source.ready(), source.ready()]);
    expect(first).toBe(second);
    expect(first.connected).toEqual(['fx']);
    expect(text((await registry.execute('mcp_fx_echo', { text: 'lazy' })).result)).toBe('lazy');
  });

  it('registers only enabledTools (raw or wrapped names) and skips disabled servers', async () => {
    const { source, registry } = makeSource({
      servers: {
        fx: { ...stdioFixture(), enabledTools: ['echo', 'mcp_fx_add'] },
        off: { ...stdioFixture(), enabled: false },
      },
    });
    expect(await source.start()).toEqual({ connected: ['fx'], failed: [], disabled: ['off'] });
    expect(registry.names().filter((n) => n.startsWith('mcp_'))).toEqual(['mcp_fx_add', 'mcp_fx_echo']);
    expect(source.status().map((s) => s.state)).toEqual(['connected', 'disabled']);
  });

  it('does not overwrite a tool that already holds the name, and says so', async () => {
    const registry = builtins();
    const mine = defineTool({ name: 'mcp_fx_echo', description: 'mine', execute: () => 'mine' });
    registry.register(mine);
    const { source, events } = makeSource({ servers: { fx: stdioFixture() }, registry });
    await source.start();
    expect(registry.get('mcp_fx_echo')).toBe(mine);
    expect(events).toContainEqual({ type: 'name-taken', name: 'mcp_fx_echo', dropped: { server: 'fx', tool: 'echo' } });
    await source.close();
    expect(registry.get('mcp_fx_echo')).toBe(mine);
  });

  it('leaves no listeners on a long-lived caller signal', async () => {
    const { source } = makeSource({ servers: { fx: stdioFixture() } });
    await source.start();
    const controller = new AbortController();
    const ctx = createToolContext({ signal: controller.signal });
    for (let i = 0; i < 15; i += 1) await source.get('mcp_fx_echo')!.execute({ text: 'x' }, ctx);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('skips and reports a tool whose schema cannot be compiled; the rest register', async () => {
    const { source, registry, events } = makeSource({ servers: { fx: stdioFixture({ FIXTURE_BAD_SCHEMA: '1' }) } });
    await source.start();
    expect(registry.has('mcp_fx_broken')).toBe(false);
    expect(registry.has('mcp_fx_echo')).toBe(true);
    const skipped = events.filter((e) => e.type === 'tool-skipped');
    expect(skipped).toHaveLength(1);
    expect(skipped[0]).toMatchObject({ name: 'mcp_fx_broken', dropped: { server: 'fx', tool: 'broken' } });
    expect((skipped[0] as { reason: string }).reason).toContain('#/$defs/missing');
  });

  it('works without a registry', async () => {
    const source = new McpToolSource({ servers: { fx: stdioFixture() } });
    cleanups.push(() => source.close());
    await source.start();
    const echo = source.get('mcp_fx_echo')!;
    expect(echo.server).toBe('fx');
    expect(echo.toSchema().function.name).toBe('mcp_fx_echo');
    expect(await echo.execute({ text: 'bare' }, createToolContext())).toMatchObject({ content: 'bare', isError: false });
  });

  it.each([
    [{ registry: {} }, '`registry` needs register(), unregister() and get()'],
    [{ connect: 'eager' }, "`connect` must be 'startup' or 'lazy', got \"eager\""],
    [{ connectTimeoutMs: 0 }, '`connectTimeoutMs` must be a number > 0'],
    [{ onEvent: 'log' }, '`onEvent` must be a function'],
  ])('rejects misassembled options %j', (extra, message) => {
    expect(() => new McpToolSource({ servers: {}, ...(extra as object) })).toThrow(message);
  });

  it('validates the configuration up front', () => {
    expect(() => new McpToolSource({ servers: { fx: { command: 'node', url: 'http://127.0.0.1:1/mcp' } as never } })).toThrow(
      /servers\.fx: a server entry has either "command"/,
    );
  });
});

describe('McpToolSource over streamable HTTP', () => {
  async function http(env: Record<string, string> = {}, port?: number): Promise<HttpFixture> {
    const server = await startHttpFixture(env, port);
    cleanups.push(() => server.kill());
    return server;
  }

  it('lists and calls tools and sends the configured headers', async () => {
    const log = tempLog();
    const server = await http({ FIXTURE_LOG: log });
    const { source, registry } = makeSource({ servers: { web: { url: server.url, headers: { 'x-fixture-auth': 'secret' } } } });
    expect((await source.start()).connected).toEqual(['web']);
    expect(registry.names().filter((n) => n.startsWith('mcp_web_'))).toHaveLength(FIXTURE_TOOLS.length);
    expect(text((await registry.execute('mcp_web_echo', { text: 'over http' })).result)).toBe('over http');
    const bad = await registry.execute('mcp_web_echo', { text: 'NOPE' });
    expect(bad.status).toBe('invalid_params');
    const entries = readFixtureLog(log);
    expect(entries.filter((e) => e.event === 'call').map((e) => e.args)).toEqual([{ text: 'over http' }]);
    expect(entries.filter((e) => e.event === 'http').every((e) => e.auth === 'secret')).toBe(true);
  });

  it('follows tools/list_changed over HTTP', async () => {
    const server = await http();
    const { source, registry } = makeSource({ servers: { web: { url: server.url } } });
    await source.start();
    await registry.execute('mcp_web_toggle', {});
    await waitFor(() => registry.has('mcp_web_late'), 'mcp_web_late to be registered');
    expect(text((await registry.execute('mcp_web_late', {})).result)).toBe('ran late');
  });

  it('cancels and times out over HTTP', async () => {
    const log = tempLog();
    const server = await http({ FIXTURE_LOG: log });
    const { source, registry } = makeSource({ servers: { web: { url: server.url, toolTimeout: 0.5 } } });
    await source.start();
    const timedOut = await registry.execute('mcp_web_slow', { ms: 600_000 });
    expect(text(timedOut.result)).toContain("timed out after 0.5s");
    await waitFor(() => readFixtureLog(log).some((e) => e.event === 'cancelled'), 'the cancellation');
  });

  it('reports a server killed mid-call; after a restart the next call works', async () => {
    const log = tempLog();
    const server = await http({ FIXTURE_LOG: log });
    const { source, registry } = makeSource({ servers: { web: { url: server.url } } });
    await source.start();
    const pending = registry.execute('mcp_web_slow', { ms: 600_000 });
    await waitFor(() => readFixtureLog(log).some((e) => e.name === 'slow'), 'the call to reach the server');
    await server.kill();
    const result = await pending;
    expect(result.isError).toBe(true);
    expect(text(result.result)).toContain("Error: MCP server 'web' disconnected during the call to 'slow'");

    // Same port: the client's old session is unknown there, so it must start a new one.
    await http({ FIXTURE_LOG: log }, server.port);
    const next = await registry.execute('mcp_web_echo', { text: 'restarted' });
    expect(text(next.result)).toBe('restarted');
  });

  it('a server that was up and dropped reports "failed to reconnect", never "failed to start"', async () => {
    const server = await http();
    const { source, registry, events } = makeSource({ servers: { web: { url: server.url } }, connectTimeoutMs: 5000 });
    await source.start();
    expect(text((await registry.execute('mcp_web_echo', { text: 'up' })).result)).toBe('up');
    await server.kill();
    // Calls after the drop fail first with "disconnected", then with the reconnect's failure
    // (on demand or from the background retry, whichever comes first on a loaded machine).
    const said: string[] = [];
    for (let i = 0; i < 20 && !said.some((m) => /failed to/.test(m)); i++) {
      const next = await registry.execute('mcp_web_echo', { text: 'down' });
      expect(next.isError).toBe(true);
      said.push(text(next.result), ...events.filter((e) => e.type === 'connect-failed').map((e) => (e as { error: Error }).error.message));
    }
    const messages = said.join('\n');
    expect(messages).toContain("MCP server 'web' failed to reconnect");
    expect(messages).not.toContain('failed to start');
    await source.close();
  });

  it('reports an unreachable server and skips it', async () => {
    const server = await http();
    await server.kill();
    const { source, registry } = makeSource({ servers: { gone: { url: server.url } }, connectTimeoutMs: 5000 });
    const report = await source.start();
    expect(report.failed.map((f) => f.server)).toEqual(['gone']);
    expect(report.failed[0].error.message).toContain("MCP server 'gone' failed to start");
    expect(registry.names()).toEqual(['read_file', 'exec']);
  });
});
