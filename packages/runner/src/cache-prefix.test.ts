// Prompt-cache friendliness of real requests: the whole stack (context builder, JSONL session
// replay, runner, governor, the official SDKs) against local 127.0.0.1 servers. OpenAI caches a
// repeated prefix automatically, so consecutive requests of a growing session must repeat the
// previous request byte for byte; Anthropic caches at explicit breakpoints, so each request's
// `cache_control` markers sit at the governor's reported boundaries and the one for the previous
// request's end sits on the very block the previous request wrote its last breakpoint on.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { GovernReport } from '@nanobot/governor';
import type { Message } from '@nanobot/schema';
import { OpenAICompatProvider } from '@nanobot/providers/openai';
import { AnthropicProvider } from '@nanobot/providers/anthropic';
import { ToolRegistry } from '@nanobot/registry';
import { defineTool } from '@nanobot/tools-core';
import { AgentRunner } from './agent-runner.js';
import { createAgent } from './create-agent.js';
import type { GovernedRequest } from './runner-ports.js';

type Rec = Record<string, unknown>;
type Reply = (body: Rec, res: ServerResponse) => void;
let server: Server;
let url: string;
const queue: Reply[] = [];
const bodies: Rec[] = [];
const dirs: string[] = [];

beforeEach(async () => {
  queue.length = 0;
  bodies.length = 0;
  server = createServer((req, res) => {
    let text = '';
    req.on('data', (c: Buffer) => (text += c.toString()));
    req.on('end', () => {
      const body = JSON.parse(text) as Rec;
      bodies.push(body);
      const reply = queue.shift();
      if (!reply) return json(res, 500, { error: { message: 'no reply queued' } });
      reply(body, res);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterEach(async () => {
  await new Promise<void>((r) => server.close(() => r()));
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}
function temp(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
}

/** A chat completion, streamed when the request asks for a stream (the agent streams). */
const completion = (message: Rec) => (body: Rec, res: ServerResponse) => {
  const finish = message.tool_calls ? 'tool_calls' : 'stop';
  if (body.stream === true) {
    const calls = (message.tool_calls as Rec[] | undefined)?.map((c, index) => ({ index, ...c }));
    const delta = { role: 'assistant', ...(message.content ? { content: message.content } : {}), ...(calls ? { tool_calls: calls } : {}) };
    const chunk = (choices: unknown[], extra: Rec = {}) => `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o', choices, ...extra })}\n\n`;
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(chunk([{ index: 0, delta, finish_reason: null }]));
    res.write(chunk([{ index: 0, delta: {}, finish_reason: finish }]));
    res.write(chunk([], { usage: { prompt_tokens: 100, completion_tokens: 5, total_tokens: 105 } }));
    res.end('data: [DONE]\n\n');
    return;
  }
  json(res, 200, {
    id: 'c', object: 'chat.completion', created: 1, model: 'gpt-4o',
    choices: [{ index: 0, message: { role: 'assistant', content: null, ...message }, finish_reason: finish }],
    usage: { prompt_tokens: 100, completion_tokens: 5, total_tokens: 105 },
  });
};
const toolCall = (id: string, name: string, args: Rec) => ({ tool_calls: [{ id, type: 'function', function: { name, arguments: JSON.stringify(args) } }] });

describe('OpenAI: consecutive requests of a growing session share their serialised prefix', () => {
  it('within a turn and across turns (context builder, session replay, built-in tools)', async () => {
    const workspace = temp('cache-ws-');
    writeFileSync(join(workspace, 'notes.txt'), 'status: TODO\n');
    queue.push(
      completion(toolCall('r1', 'read_file', { path: 'notes.txt' })),
      completion(toolCall('l1', 'list_dir', { path: '.' })),
      completion({ content: 'The notes say TODO.' }),
      completion(toolCall('r2', 'read_file', { path: 'notes.txt' })),
      completion({ content: 'Still TODO.' }),
    );
    const provider = new OpenAICompatProvider({ model: 'gpt-4o', apiKey: 'k', baseUrl: `${url}/v1`, retry: { maxAttempts: 1 } });
    const agent = createAgent({ workspace, provider, sessionsDir: temp('cache-sessions-'), web: false, exec: false, contextWindowTokens: 128_000 });
    await agent.ask('What do my notes say?');
    await agent.ask('And now?');
    await agent.stop();
    expect(bodies).toHaveLength(5);
    for (let i = 1; i < bodies.length; i++) {
      const before = JSON.stringify(bodies[i - 1].messages);
      const after = JSON.stringify(bodies[i].messages);
      // Everything the previous request sent, byte for byte, then only new messages.
      expect(after.startsWith(before.slice(0, -1) + ','), `request ${i} repeats request ${i - 1}`).toBe(true);
      expect(JSON.stringify(bodies[i].tools)).toBe(JSON.stringify(bodies[i - 1].tools));
      expect(bodies[i].model).toBe(bodies[i - 1].model);
    }
  }, 60_000);
});

const anthropicReply = (content: Rec[]) => (_b: Rec, res: ServerResponse) =>
  json(res, 200, {
    id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-test', content,
    stop_reason: content.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn', stop_sequence: null,
    usage: { input_tokens: 100, output_tokens: 5 },
  });

/** Paths of the blocks carrying `cache_control`, with each block (marker removed) for comparison. */
function marked(body: Rec): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (list: unknown, path: string): void => {
    if (!Array.isArray(list)) return;
    list.forEach((b: Rec, i) => {
      if (b.cache_control === undefined) return;
      const { cache_control: _c, ...rest } = b;
      out.set(`${path}.${i}`, JSON.stringify(rest));
    });
  };
  walk(body.tools, 'tools');
  walk(body.system, 'system');
  (body.messages as { content: unknown }[]).forEach((m, i) => walk(m.content, `messages.${i}.content`));
  return out;
}

describe('Anthropic: the runner passes the governor\'s boundaries and the provider marks them', () => {
  it('each request reads at the block the request before wrote its last breakpoint on', async () => {
    const tools = new ToolRegistry();
    tools.register(defineTool({ name: 'lookup', description: 'Look a word up', parameters: { type: 'object', properties: { word: { type: 'string' } }, required: ['word'] }, readOnly: true, execute: (a: { word: string }) => `${a.word}: a word` }));
    queue.push(
      anthropicReply([{ type: 'text', text: 'Looking.' }, { type: 'tool_use', id: 'toolu_1', name: 'lookup', input: { word: 'cache' } }]),
      anthropicReply([{ type: 'thinking', thinking: 'two more', signature: 's1' }, { type: 'tool_use', id: 'toolu_2', name: 'lookup', input: { word: 'prefix' } }, { type: 'tool_use', id: 'toolu_3', name: 'lookup', input: { word: 'block' } }]),
      anthropicReply([{ type: 'text', text: 'Done.' }]),
    );
    const governed: GovernedRequest[] = [];
    const initial: Message[] = [{ role: 'system', content: 'You are a test agent.' }, { role: 'user', content: 'Define three words.' }];
    const result = await new AgentRunner().run({
      initialMessages: initial,
      provider: new AnthropicProvider({ model: 'claude-test', apiKey: 'k', baseUrl: url, retry: { maxAttempts: 1 } }),
      tools,
      stream: false,
      tracer: false,
      contextWindowTokens: 200_000,
      onGoverned: (r) => void governed.push(r),
    });
    expect(result.finalContent).toBe('Done.');
    expect(bodies).toHaveLength(3);
    bodies.forEach((body, i) => {
      const boundaries = (governed[i].report as GovernReport).cacheBoundaries;
      expect(boundaries.last).toBe(governed[i].messages.length - 1);
      const marks = marked(body);
      expect(marks.size).toBeLessThanOrEqual(4);
      const turns = body.messages as { content: unknown[] }[];
      // The last message, the system prompt and the (only) tool are marked.
      expect([...marks.keys()]).toContain(`messages.${turns.length - 1}.content.${turns.at(-1)!.content.length - 1}`);
      expect([...marks.keys()]).toContain('system.0');
      expect([...marks.keys()]).toContain('tools.0');
      if (i === 0) {
        expect(boundaries.previous).toBeUndefined();
        return;
      }
      // The previous request's last breakpoint: same place, same block, marked again.
      const before = marked(bodies[i - 1]);
      const beforeTurns = bodies[i - 1].messages as { content: unknown[] }[];
      const lastBefore = `messages.${beforeTurns.length - 1}.content.${beforeTurns.at(-1)!.content.length - 1}`;
      expect(marks.get(lastBefore)).toBe(before.get(lastBefore));
    });
    // The thinking block of the second answer is replayed and never marked.
    const third = bodies[2].messages as { content: Rec[] }[];
    const thinking = third.flatMap((t) => t.content).find((b) => b.type === 'thinking');
    expect(thinking).toEqual({ type: 'thinking', thinking: 'two more', signature: 's1' });
  }, 60_000);
});
