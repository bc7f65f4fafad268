import type { LLMRequest, LLMResponse, Message, ToolDefinition } from '@nanobot/schema';
import { describe, expect, it } from 'vitest';
import { createOfflineModel } from './offline-model.js';

const tools: ToolDefinition[] = [{ type: 'function', function: { name: 'read_file', description: '', parameters: { type: 'object' } } }];

async function ask(messages: Message[]): Promise<LLMResponse> {
  const request: LLMRequest = { messages, tools };
  return createOfflineModel({ deltaDelayMs: 0 }).chat(request);
}

function toolCall(id: string, name: string, args: Record<string, unknown>): Message {
  return { role: 'assistant', content: null, tool_calls: [{ id, type: 'function', function: { name, arguments: JSON.stringify(args) } }] };
}

describe('the offline demo model', () => {
  it('lists the workspace first, then opens the README it saw, then answers from both results', async () => {
    const user: Message = { role: 'user', content: 'What is here?\n\n[Runtime Context — metadata only, not instructions]\nChannel: web\n[/Runtime Context]' };
    const first = await ask([{ role: 'system', content: 's' }, user]);
    expect(first.toolCalls.map((c) => [c.name, c.arguments])).toEqual([['list_dir', { path: '.' }]]);
    const listed: Message[] = [user, toolCall('a', 'list_dir', { path: '.' }), { role: 'tool', tool_call_id: 'a', name: 'list_dir', content: '📁 logs\n📄 notes.md\n📄 README.md' }];
    const second = await ask(listed);
    expect(second.toolCalls.map((c) => [c.name, c.arguments])).toEqual([['read_file', { path: 'README.md' }]]);
    const read: Message[] = [...listed, toolCall('b', 'read_file', { path: 'README.md' }), { role: 'tool', tool_call_id: 'b', name: 'read_file', content: '1|# Demo\n2|text' }];
    const answer = await ask(read);
    expect(answer.toolCalls).toEqual([]);
    expect(answer.content).toContain('shows 3 entries');
    expect(answer.content).toContain('> 1|# Demo');
  });

  it('reads a named file, greps the logs, searches words, and reports failures as such', async () => {
    const plan = async (text: string) => (await ask([{ role: 'user', content: text }])).toolCalls.map((c) => [c.name, c.arguments]);
    expect(await plan('please read src/app.ts')).toEqual([['read_file', { path: 'src/app.ts' }]]);
    expect(await plan('Check the logs')).toEqual([['grep', { pattern: 'INFO|WARN|ERROR', path: 'logs', output_mode: 'content', head_limit: 1000 }]]);
    expect(await plan('search for rollback')).toEqual([['grep', { pattern: 'rollback', path: '.', output_mode: 'content', case_insensitive: true }]]);
    const failed = await ask([{ role: 'user', content: 'read missing.md' }, toolCall('x', 'read_file', { path: 'missing.md' }), { role: 'tool', tool_call_id: 'x', name: 'read_file', content: 'Error: File not found: missing.md' }]);
    expect(failed.content).toContain('failed: Error: File not found: missing.md');
  });

  it('answers "Check the logs" from the log lines it was shown, also when the governor shortened them', async () => {
    const log = ['2026-11-29T10:00:00Z INFO step 0: start', '2026-11-29T10:00:01Z ERROR step 1: disk full', '2026-11-29T10:00:02Z WARN step 2: slow'].join('\n');
    const shown = `[output shortened to fit the context: 120 of 30,083 characters shown; the full output is at /a/b.txt — read it there in parts for the rest]\n\n${log}`;
    for (const content of [log, shown]) {
      const reply = await ask([{ role: 'user', content: 'Check the logs' }, toolCall('g', 'grep', { pattern: 'INFO|WARN|ERROR' }), { role: 'tool', tool_call_id: 'g', name: 'grep', content }]);
      expect(reply.content).toContain('found 3 log lines');
      expect(reply.content).toContain('1 ERROR, 1 WARN, 1 INFO');
      expect(reply.content).toContain('> 2026-11-29T10:00:01Z ERROR step 1: disk full');
      expect(reply.content).not.toMatch(/failed|\[output shortened/);
      expect(reply.content!.includes('120 of 30,083 characters I was shown')).toBe(content === shown);
    }
  });

  it('answers without tools when the request offers none', async () => {
    const response = await createOfflineModel({ deltaDelayMs: 0 }).chat({ messages: [{ role: 'user', content: 'hello' }] });
    expect(response.toolCalls).toEqual([]);
    expect(response.content).toContain('You said: “hello”');
  });
});
