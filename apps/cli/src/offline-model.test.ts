import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { LLMRequest, Message } from '@nanobot/schema';
import { OFFLINE_HELP_REPLY, offlineModelStep } from './offline-model.js';

const req = (messages: Message[]): LLMRequest => ({ messages: Object.freeze(messages.map((m) => Object.freeze(m))) });
const call = (id: string, name: string, args: Record<string, unknown>) => ({ id, type: 'function' as const, function: { name, arguments: JSON.stringify(args) } });

describe('offlineModelStep', () => {
  it('answers chat in words and never calls a tool, whatever the message says', () => {
    const chat = ['what does `touch pwned.txt` do?', 'is `rm -rf build` safe?', 'run the tests please', 'run: ls -la', 'demo', 'show me the demo', 'write notes/a.md: hello', 'list files', 'read README.md', 'grep TODO'];
    for (const text of chat) {
      const reply = offlineModelStep(req([{ role: 'system', content: 's' }, { role: 'user', content: text }]));
      expect(reply).toEqual({ content: OFFLINE_HELP_REPLY });
    }
    // Even after tool results in the transcript (a session resumed from a real model).
    const reply = offlineModelStep(
      req([
        { role: 'user', content: 'list files' },
        { role: 'assistant', content: null, tool_calls: [call('c1', 'list_dir', { path: '.' })] },
        { role: 'tool', tool_call_id: 'c1', name: 'list_dir', content: 'alpha.txt\nbeta/' },
      ]),
    );
    expect(reply.toolCalls).toBeUndefined();
    expect(OFFLINE_HELP_REPLY).toContain('nanobot run --demo');
  });

  it('plays the demo plan step by step on what the tools returned', () => {
    const m: Message[] = [{ role: 'user', content: 'demo' }];
    const next = () => offlineModelStep(req(m), { demo: true });
    const feed = (id: string, name: string, args: Record<string, unknown>, result: string) => {
      m.push({ role: 'assistant', content: null, tool_calls: [call(id, name, args)] }, { role: 'tool', tool_call_id: id, name, content: result });
    };
    expect(next().toolCalls?.[0].name).toBe('list_dir');
    feed('a', 'list_dir', { path: '.' }, 'notes.md\nsrc/\nREADME.md');
    expect(next().toolCalls?.[0]).toMatchObject({ name: 'read_file', arguments: { path: 'README.md' } });
    feed('b', 'read_file', { path: 'README.md' }, '1|# Title\n2|text\n\n(End of file — 2 lines total)');
    const write = next().toolCalls?.[0];
    expect(write?.name).toBe('write_file');
    expect(String((write?.arguments as { content: string }).content)).toContain('README.md has 2 lines; it starts with: # Title');
    feed('c', 'write_file', write!.arguments as Record<string, unknown>, 'Successfully wrote 90 characters to notes/nanobot-demo.md');
    expect(next().toolCalls?.[0]).toMatchObject({ name: 'exec', arguments: { command: "wc -l 'README.md' 'notes/nanobot-demo.md'" } });
    feed('d', 'exec', {}, ' 2 README.md\n 4 notes/nanobot-demo.md\n 6 total\n\nExit code: 0');
    const done = next();
    expect(done.toolCalls).toBeUndefined();
    expect(done.content).toContain('read_file README.md: 2 lines, starting "# Title"');
    expect(done.content).toContain('exec wc -l: 2 README.md; 4 notes/nanobot-demo.md; 6 total');
  });

  it('never throws on arbitrary transcripts, always answers or calls a tool, and calls tools only in the demo', () => {
    const message = fc.oneof(
      fc.record({ role: fc.constant('user'), content: fc.string() }),
      fc.record({ role: fc.constant('assistant'), content: fc.option(fc.string(), { nil: null }) }),
      fc.record({ role: fc.constant('tool'), tool_call_id: fc.string(), content: fc.string() }),
      fc.record({
        role: fc.constant('assistant'),
        content: fc.constant(null),
        tool_calls: fc.array(fc.record({ id: fc.string(), type: fc.constant('function'), function: fc.record({ name: fc.string(), arguments: fc.string() }) }), { maxLength: 3 }),
      }),
    );
    fc.assert(
      fc.property(fc.array(message, { maxLength: 12 }), fc.boolean(), (messages, demo) => {
        const reply = offlineModelStep(req(messages as Message[]), { demo });
        expect(typeof reply.content === 'string' || (reply.toolCalls ?? []).length > 0).toBe(true);
        if (!demo) expect(reply.toolCalls).toBeUndefined();
      }),
      { numRuns: 300 },
    );
  });
});
