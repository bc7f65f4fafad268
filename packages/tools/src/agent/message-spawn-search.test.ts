import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMessageTool, type OutboundMessage } from './message-tool.js';
import { createSpawnTool, defaultSpawnLabel, type SpawnOutcome, type SpawnRequest } from './spawn-tool.js';
import { call } from '../test-support/run-tool.js';
import { createTempWorkspace, type TempWorkspace } from '../test-support/temp-workspace.js';
import { createWebSearchTool, formatSearchResults } from '../web/web-search-tool.js';
import { WorkspaceViolationError } from '../workspace/workspace-violation-error.js';

let ws: TempWorkspace;
beforeEach(async () => {
  ws = await createTempWorkspace();
});
afterEach(() => ws.dispose());

describe('message', () => {
  it('delivers to the chat of the call context, concurrently, with no shared state', async () => {
    const sent: OutboundMessage[] = [];
    const tool = createMessageTool({
      sender: {
        async send(m) {
          // Deliveries finish in reverse order to expose any "current chat" state.
          await new Promise((r) => setTimeout(r, Number(m.chatId) % 5));
          sent.push(m);
        },
      },
    });
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => call(tool, { content: `hello ${i}` }, ws.ctx({ channel: 'telegram', chatId: String(i), sessionKey: `telegram:${i}` }))),
    );
    results.forEach((r, i) => expect(r.text).toBe(`Message sent to telegram:${i}`));
    expect(sent).toHaveLength(20);
    for (const m of sent) {
      expect(m.content).toBe(`hello ${m.chatId}`);
      expect(m.origin).toEqual({ sessionKey: `telegram:${m.chatId}`, channel: 'telegram', chatId: m.chatId });
    }
  });

  it('explicit targets, attachments and buttons are reported as the reference words them', async () => {
    const sent: OutboundMessage[] = [];
    const tool = createMessageTool({ sender: { send: async (m) => void sent.push(m) } });
    await ws.write('pic.png', 'x');
    const out = await call(tool, { content: 'see', channel: 'slack', chat_id: 'C1', media: ['pic.png'], buttons: [['Yes', 'No'], ['Later']] }, ws.ctx());
    expect(out.text).toBe('Message sent to slack:C1 with 1 attachments with 3 button(s)');
    expect(sent[0].media).toEqual([join(ws.root, 'pic.png')]);
    expect(sent[0].origin.chatId).toBe('direct');
  });

  it('media outside the workspace is a workspace violation; sender failures are error results', async () => {
    const tool = createMessageTool({ sender: { send: async () => { throw new Error('channel down'); } } });
    const outside = await call(tool, { content: 'x', media: [join(ws.outside, 'secret.txt')] }, ws.ctx());
    expect(outside.thrown).toBeInstanceOf(WorkspaceViolationError);
    const down = await call(tool, { content: 'x' }, ws.ctx());
    expect(down).toMatchObject({ isError: true, text: 'Error sending message: channel down' });
  });
});

describe('spawn', () => {
  const spawner = (outcome: SpawnOutcome, seen: SpawnRequest[] = []) => ({
    spawn: async (r: SpawnRequest) => {
      seen.push(r);
      return outcome;
    },
  });

  it('starts a background subagent with the origin from the call context', async () => {
    const seen: SpawnRequest[] = [];
    const tool = createSpawnTool({ spawner: spawner({ kind: 'started', id: 'ab12cd34' }, seen) });
    const out = await call(tool, { task: 'Summarise the repository structure and list its packages' }, ws.ctx({ channel: 'cli', chatId: 'c7', sessionKey: 'cli:c7' }));
    expect(out.text).toBe("Subagent [Summarise the repository struc...] started (id: ab12cd34). I'll notify you when it completes.");
    expect(seen[0]).toMatchObject({ wait: false, label: 'Summarise the repository struc...', origin: { channel: 'cli', chatId: 'c7', sessionKey: 'cli:c7', workspace: ws.root } });
  });

  it('wait returns the result; failures and limits are error results with the reference texts', async () => {
    expect((await call(createSpawnTool({ spawner: spawner({ kind: 'completed', id: 'x', result: 'done!' }) }), { task: 't', wait: true }, ws.ctx())).text).toBe('done!');
    const failed = await call(createSpawnTool({ spawner: spawner({ kind: 'completed', id: 'x', result: 'Error: boom', isError: true }) }), { task: 't', wait: true }, ws.ctx());
    expect(failed).toMatchObject({ isError: true, text: 'Error: boom' });
    const limited = await call(createSpawnTool({ spawner: spawner({ kind: 'limit', running: 1, limit: 1 }) }), { task: 't' }, ws.ctx());
    expect(limited.text).toBe('Cannot spawn subagent: concurrency limit reached (1/1 running). Wait for a running subagent to complete before spawning a new one.');
    const noRuntime = await call(createSpawnTool({ spawner: spawner({ kind: 'no_runtime' }) }), { task: 't' }, ws.ctx());
    expect(noRuntime.text).toBe('Error: spawn requires an active model runtime');
  });

  it('default label: first 30 characters plus ... only when cut', () => {
    expect(defaultSpawnLabel('short task')).toBe('short task');
    expect(defaultSpawnLabel('x'.repeat(31))).toBe(`${'x'.repeat(30)}...`);
  });
});

describe('web_search', () => {
  it('without a backend says it is not configured', async () => {
    const out = await call(createWebSearchTool(), { query: 'nanobot' }, ws.ctx());
    expect(out.isError).toBe(true);
    expect(out.text).toMatch(/^Error: web_search is not configured/);
  });

  it('formats hits as the reference and honours count', async () => {
    const counts: number[] = [];
    const tool = createWebSearchTool({
      backend: {
        name: 'fake',
        search: async (_q, { count }) => {
          counts.push(count);
          return [
            { title: 'A', url: 'https://a.example', snippet: 'first' },
            { title: 'B', url: 'https://b.example' },
            { title: 'C', url: 'https://c.example' },
          ];
        },
      },
    });
    const out = await call(tool, { query: 'q', count: 2 }, ws.ctx());
    expect(out.text).toBe('Results for: q\n\n1. A\n   https://a.example\n   first\n2. B\n   https://b.example');
    expect(counts).toEqual([2]);
    expect(formatSearchResults('none', [])).toBe('No results for: none');
  });

  it('is exclusive only when the backend says so', () => {
    expect(createWebSearchTool().exclusive).toBe(false);
    expect(createWebSearchTool({ backend: { name: 'ddg', exclusive: true, search: async () => [] } }).exclusive).toBe(true);
  });
});
