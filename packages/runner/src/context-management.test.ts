// Server-side context management through the real runner (issue 25 item 4): the run's
// `contextManagement` setting goes to the provider as `context_management` (the official
// Anthropic SDK against a local server, beta headers included) and to the governor as its
// `serverContextManagement`, so every governance report says the server edits the context.
import { createServer } from 'node:http';
import type { IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { GovernReport } from '@nanobot/governor';
import { ToolRegistry } from '@nanobot/registry';
import { AnthropicProvider } from '@nanobot/providers/anthropic';
import { AgentRunner } from './agent-runner.js';
import type { RunnerEvent } from './runner-events.js';

let server: Server;
let url: string;
const seen: { body: Record<string, unknown>; headers: IncomingHttpHeaders }[] = [];

beforeEach(async () => {
  seen.length = 0;
  server = createServer((req, res) => {
    let text = '';
    req.on('data', (c: Buffer) => (text += c.toString()));
    req.on('end', () => {
      seen.push({ body: JSON.parse(text) as Record<string, unknown>, headers: req.headers });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-sonnet-4-6', content: [{ type: 'text', text: 'done' }], stop_reason: 'end_turn', stop_sequence: null, usage: { input_tokens: 10, output_tokens: 2 } }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterEach(async () => {
  await new Promise<void>((r) => server.close(() => r()));
});

async function run(contextManagement?: Record<string, unknown>): Promise<GovernReport[]> {
  const events: RunnerEvent[] = [];
  await new AgentRunner().run({
    initialMessages: [{ role: 'user', content: 'tidy the repo' }],
    provider: new AnthropicProvider({ apiKey: 'k', baseUrl: url, model: 'claude-sonnet-4-6', publishesModelLimits: false }),
    tools: new ToolRegistry(),
    stream: false,
    tracer: false,
    contextWindowTokens: 200_000,
    events: (e) => void events.push(e),
    ...(contextManagement === undefined ? {} : { contextManagement }),
  });
  return events.flatMap((e) => (e.type === 'governance' ? [e.report as GovernReport] : []));
}

describe('contextManagement through the runner', () => {
  it('is sent as context_management with its beta headers, and each governance report names the edits', async () => {
    const cm = { edits: [{ type: 'clear_tool_uses_20250919', trigger: { type: 'input_tokens', value: 30_000 } }, { type: 'compact_20260112' }] };
    const reports = await run(cm);
    expect(seen).toHaveLength(1);
    expect(seen[0].body.context_management).toEqual(cm);
    expect(String(seen[0].headers['anthropic-beta'])).toContain('context-management-2025-06-27');
    expect(String(seen[0].headers['anthropic-beta'])).toContain('compact-2026-01-12');
    expect(reports).toHaveLength(1);
    expect(reports[0].serverEditing).toEqual({ edits: ['clear_tool_uses_20250919', 'compact_20260112'] });
  });

  it('without it, neither the request nor the report mentions server-side editing', async () => {
    const reports = await run();
    expect(seen[0].body.context_management).toBeUndefined();
    expect(seen[0].headers['anthropic-beta']).toBeUndefined();
    expect(reports[0].serverEditing).toBeUndefined();
  });
});
