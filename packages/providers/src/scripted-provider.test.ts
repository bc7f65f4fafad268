import { describe, expect, it } from 'vitest';
import type { LLMRequest, LLMStreamEvent, Message } from '@nanobot/schema';
import { ScriptedProvider, scriptedError } from './scripted-provider.js';
import { ProviderAbortError } from './provider-error.js';
import { collectStream } from './collect-stream.js';
import { deepFreeze } from '@nanobot-internal/test-support';

const ask = (content: string): LLMRequest => ({ messages: [{ role: 'user', content }] });

describe('ScriptedProvider', () => {
  it('replays text and tool calls in order, recording deep copies of what it was sent', async () => {
    const p = new ScriptedProvider(['hello', { toolCalls: [{ name: 'read_file', arguments: { path: 'a' } }] }]);
    const request = deepFreeze(ask('one'));
    expect(await p.chat(request)).toMatchObject({ content: 'hello', finishReason: 'stop', provider: 'scripted' });
    const second = await p.chat(ask('two'));
    expect(second.toolCalls).toEqual([{ id: 'call_1_0', name: 'read_file', arguments: { path: 'a' } }]);
    expect(second.finishReason).toBe('tool_calls');
    expect(p.requests.map((r) => r.messages[0].content)).toEqual(['one', 'two']);
    expect(p.requests[0]).not.toBe(request);
    p.assertDone();
  });

  it('logs the request as it was at the call, for stream() too (its body runs at the first next())', async () => {
    const p = new ScriptedProvider(['a', 'b']);
    const messages: Message[] = [{ role: 'user', content: 'one' }];
    const stream = p.stream({ messages });
    messages.push({ role: 'user', content: 'pushed before reading' });
    await collectStream(stream);
    const pending = p.chat({ messages });
    messages.push({ role: 'user', content: 'pushed while answering' });
    await pending;
    expect(p.requests.map((r) => r.messages.length)).toEqual([1, 2]);
    expect(p.requests[0].messages).not.toBe(messages);
    expect(p.requests[1].messages).not.toBe(messages);
  });

  it('throws a clear error when the script runs out, or repeats the last step if asked', async () => {
    const p = new ScriptedProvider(['only']);
    await p.chat(ask('a'));
    await expect(p.chat(ask('b'))).rejects.toThrow(/1 step\(s\) but request 2 arrived/);
    const r = new ScriptedProvider(['again'], { whenExhausted: 'repeat-last' });
    await r.chat(ask('a'));
    expect((await r.chat(ask('b'))).content).toBe('again');
  });

  it('assertDone fails when steps were left unused', () => {
    expect(() => new ScriptedProvider(['a', 'b']).assertDone()).toThrow(/2 scripted step/);
  });

  it('reacts to the request when a step is a function (offline demo)', async () => {
    const p = new ScriptedProvider((request) => {
      const last = request.messages.at(-1)!;
      if (last.role === 'tool') return `The file says: ${String(last.content)}`;
      return { toolCalls: [{ name: 'read_file', arguments: { path: 'notes.md' } }] };
    });
    const first = await p.chat(ask('read notes'));
    expect(first.toolCalls[0].name).toBe('read_file');
    const second = await p.chat({ messages: [{ role: 'user', content: 'read notes' }, { role: 'tool', tool_call_id: first.toolCalls[0].id, content: 'buy milk' }] });
    expect(second.content).toBe('The file says: buy milk');
  });

  it('streams deltas, tool-call deltas and exactly one done', async () => {
    const p = new ScriptedProvider([{ content: 'Hi there', reasoning: 'greet', toolCalls: [{ name: 'x', arguments: '{"a":', argumentDeltas: ['{"a":', ' 1}'] }] }]);
    const events: LLMStreamEvent[] = [];
    for await (const e of p.stream(ask('hi'))) events.push(e);
    expect(events.map((e) => e.type)).toEqual(['reasoning_delta', 'text_delta', 'text_delta', 'tool_call_delta', 'tool_call_delta', 'tool_call_delta', 'done']);
    // The final response is parsed from the scripted arguments text, exactly like a real provider.
    expect(events.at(-1)).toMatchObject({ type: 'done', response: { content: 'Hi there', toolCalls: [{ name: 'x', arguments: '{"a":' }] } });
  });

  it('injects errors, cut streams and request assertions', async () => {
    const p = new ScriptedProvider([
      { error: scriptedError('rate_limit', 'slow', { status: 429, retryAfterMs: 5 }) },
      { content: 'a b c', cutAfter: 2 },
      { content: 'ok', expect: (r) => expect(r.maxTokens).toBe(10) },
    ]);
    await expect(p.chat(ask('x'))).rejects.toMatchObject({ kind: 'rate_limit', retryable: true, retryAfterMs: 5 });
    await expect(collectStream(p.stream(ask('x')))).rejects.toMatchObject({ kind: 'stream_interrupted' });
    await expect(p.chat(ask('x'))).rejects.toThrow();
  });

  it('honours an aborted signal', async () => {
    const c = new AbortController();
    c.abort();
    await expect(new ScriptedProvider(['x']).chat({ ...ask('x'), signal: c.signal })).rejects.toBeInstanceOf(ProviderAbortError);
  });

  it('drops a scripted call without a usable name, as real providers do', async () => {
    const res = await new ScriptedProvider([{ toolCalls: [{ name: '' }, { name: 'ok' }] }]).chat(ask('x'));
    expect(res.toolCalls.map((c) => c.name)).toEqual(['ok']);
  });
});
