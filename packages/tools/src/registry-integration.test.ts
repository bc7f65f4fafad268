import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ToolRegistry } from '@nanobot/registry';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createBuiltinTools } from './create-builtin-tools.js';
import { SsrfBlockedError } from './web/ssrf-blocked-error.js';
import { createTempWorkspace, type TempWorkspace } from './test-support/temp-workspace.js';
import { WorkspaceViolationError } from './workspace/workspace-violation-error.js';

let ws: TempWorkspace;
let registry: ToolRegistry;
const queries: { query: string; count: number }[] = [];
beforeEach(async () => {
  ws = await createTempWorkspace();
  registry = new ToolRegistry();
  queries.length = 0;
  const tools = createBuiltinTools({
    web: { searchBackend: { name: 'fake', search: async (query, { count }) => (queries.push({ query, count }), []) } },
  });
  for (const tool of tools) registry.register(tool);
});
afterEach(() => ws.dispose());

// tools-core's castParams/validateParams are pass-throughs until it wires @nanobot/schema's
// validator in; these two reference cases run (and must pass) as soon as it does.
const validationWired = createBuiltinTools()[0].validateParams({ path: 'x', extra: 1 }).length > 0;

describe('built-ins behind @nanobot/registry', () => {
  it('a scripted edit session: write, edit, run, read', async () => {
    const ctx = ws.ctx();
    expect((await registry.execute('write_file', '{"path":"app.py","content":"print(1)\\n"}', ctx)).status).toBe('ok');
    expect((await registry.execute('edit_file', { path: 'app.py', old_text: 'print(1)', new_text: 'print(41 + 1)' }, ctx)).status).toBe('ok');
    const run = await registry.execute('exec', { command: 'cat app.py | wc -l' }, ctx);
    expect(run.result.content).toBe('1\n\n\nExit code: 0');
    const read = await registry.execute('read_file', { path: 'app.py' }, ctx);
    expect(read.result.content).toBe('1|print(41 + 1)\n\n(End of file — 1 lines total)');
  });

  it.skipIf(!validationWired)('reference 63: an unknown read_file argument is rejected before the file is read', async () => {
    await ws.write('f.txt', 'x');
    const out = await registry.execute('read_file', { path: 'f.txt', line_limit: 3 }, ws.ctx());
    expect(out.status).toBe('invalid_params');
    expect(out.result.content).toContain('Invalid parameters');
    expect(out.result.content).toContain('unexpected parameter line_limit');
  });

  it.skipIf(!validationWired)('reference 70: web_search casts a string count; an out-of-range count is invalid', async () => {
    expect((await registry.execute('web_search', { query: 'hello', count: '3' }, ws.ctx())).result.content).toBe('No results for: hello');
    expect(queries).toEqual([{ query: 'hello', count: 3 }]);
    expect((await registry.execute('web_search', { query: 'h', count: 11 }, ws.ctx())).status).toBe('invalid_params');
  });

  it('boundary refusals stay typed through the registry (status threw, error kept)', async () => {
    const outside = await registry.execute('write_file', { path: '../outside/secret.txt', content: 'x' }, ws.ctx());
    expect(outside.status).toBe('threw');
    expect(outside.error).toBeInstanceOf(WorkspaceViolationError);
    expect(outside.result.content).toContain('outside allowed directory');
    expect(await readFile(join(ws.outside, 'secret.txt'), 'utf8')).toBe('TOP SECRET\n');
    const ssrf = await registry.execute('web_fetch', { url: 'http://169.254.169.254/latest/meta-data/' }, ws.ctx());
    expect(ssrf.error).toBeInstanceOf(SsrfBlockedError);
    expect(ssrf.result.content).toContain('private/internal address 169.254.169.254');
  });

  it('model-side failures are error results, not throws', async () => {
    const missing = await registry.execute('read_file', { path: 'nope.txt' }, ws.ctx());
    expect(missing.status).toBe('tool_error');
    expect(missing.result.content).toMatch(/^Error: File not found: nope.txt/);
  });

  it('the session tools take their sorted places among the definitions and run through the registry', { timeout: 60_000 }, async () => {
    const names = registry.definitions().map((d) => d.function.name);
    expect(names).toEqual([...names].sort());
    expect(names.filter((n) => /exec|stdin/.test(n))).toEqual(['exec', 'list_exec_sessions', 'write_stdin']);
    const ctx = ws.ctx({ sessionKey: 'cli:direct' });
    const started = await registry.execute('exec', { command: 'read line; echo got $line', yield_time_ms: 0 }, ctx);
    const id = /session_id: (\w+)/.exec(String(started.result.content))?.[1] ?? '';
    expect(id).toMatch(/^[0-9a-f]{12}$/);
    const out = await registry.execute('write_stdin', { session_id: id, chars: 'x\n', wait_for: 'got x' }, ctx);
    expect(out.status).toBe('ok');
    expect(String(out.result.content)).toMatch(/^got x\n/);
    const other = await registry.execute('list_exec_sessions', {}, ws.ctx({ sessionKey: 'telegram:9' }));
    expect(other.result.content).toBe('No active exec sessions.');
  });
});
