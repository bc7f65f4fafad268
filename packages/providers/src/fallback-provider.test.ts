import { describe, expect, it } from 'vitest';
import { FallbackProvider } from './fallback-provider.js';
import { ScriptedProvider, scriptedError } from './scripted-provider.js';
import { collectStream } from './collect-stream.js';
import type { FallbackNotice } from './fallback-provider.js';

const req = { messages: [{ role: 'user', content: 'hi' }] };

describe('FallbackProvider', () => {
  it('moves to the next provider on a retryable failure and says who answered', async () => {
    const primary = new ScriptedProvider([{ error: scriptedError('rate_limit', 'slow down', { status: 429 }) }], { name: 'openai', model: 'gpt-x' });
    const backup = new ScriptedProvider(['from backup'], { name: 'anthropic', model: 'claude-y' });
    const notices: FallbackNotice[] = [];
    const fb = new FallbackProvider([primary, { provider: backup, model: 'claude-z' }], { onFallback: (n) => notices.push(n) });
    const res = await fb.chat(req);
    expect(res).toMatchObject({ content: 'from backup', provider: 'anthropic', model: 'claude-z' });
    expect(backup.requests[0].model).toBe('claude-z');
    expect(notices.map((n) => [n.from, n.to])).toEqual([['openai:gpt-x', 'anthropic:claude-z']]);
  });

  it('every candidate gets the messages as they were at the call, even a late-opened stream', async () => {
    const a = new ScriptedProvider([{ error: scriptedError('timeout') }, { error: scriptedError('server') }]);
    const b = new ScriptedProvider(['x', 'y']);
    const fb = new FallbackProvider([a, b]);
    const messages = [{ role: 'user', content: 'hi' }];
    const stream = fb.stream({ messages });
    messages.push({ role: 'user', content: 'pushed before reading' });
    await collectStream(stream);
    const pending = fb.chat({ messages });
    messages.push({ role: 'user', content: 'pushed while the primary failed' });
    await pending;
    // Primary: the stream, then the chat; backup: the same two, after the primary failed.
    expect([...a.requests, ...b.requests].map((r) => r.messages.length)).toEqual([1, 2, 1, 2]);
  });

  it('does not fall back on a 400-class error', async () => {
    const primary = new ScriptedProvider([{ error: scriptedError('bad_request', 'invalid', { status: 400 }) }]);
    const backup = new ScriptedProvider(['never']);
    await expect(new FallbackProvider([primary, backup]).chat(req)).rejects.toMatchObject({ kind: 'bad_request' });
    expect(backup.requests).toHaveLength(0);
  });

  it('rejects with the last error when every provider fails', async () => {
    const a = new ScriptedProvider([{ error: scriptedError('server', 'a down') }]);
    const b = new ScriptedProvider([{ error: scriptedError('overloaded', 'b down') }]);
    await expect(new FallbackProvider([a, b]).chat(req)).rejects.toThrow('b down');
  });

  it('streams from the backup when the primary fails before any event', async () => {
    const a = new ScriptedProvider([{ error: scriptedError('timeout') }]);
    const b = new ScriptedProvider(['streamed answer'], { name: 'b' });
    const res = await collectStream(new FallbackProvider([a, b]).stream(req));
    expect(res).toMatchObject({ content: 'streamed answer', provider: 'b' });
  });

  it('does not fall back once the primary has streamed output (no duplicated text)', async () => {
    const a = new ScriptedProvider([{ content: 'one two three', cutAfter: 1 }]);
    const b = new ScriptedProvider(['never']);
    await expect(collectStream(new FallbackProvider([a, b]).stream(req))).rejects.toMatchObject({ kind: 'stream_interrupted' });
    expect(b.requests).toHaveLength(0);
  });

  it('accepts a custom fallback predicate and refuses an empty chain', () => {
    expect(() => new FallbackProvider([])).toThrow(/at least one/);
  });

  it('uses a custom predicate', async () => {
    const a = new ScriptedProvider([{ error: scriptedError('quota', 'no credit', { status: 429 }) }]);
    const b = new ScriptedProvider(['paid by b']);
    const fb = new FallbackProvider([a, b], { shouldFallback: (e) => e.retryable || e.kind === 'quota' });
    expect((await fb.chat(req)).content).toBe('paid by b');
  });
});

describe('FallbackProvider circuit breaker', () => {
  it('skips a primary after 3 eligible failures, probes it after the cooldown, closes on success', async () => {
    let now = 0;
    const primaryScript = [
      { error: scriptedError('server') },
      { error: scriptedError('server') },
      { error: scriptedError('server') },
      'primary back',
    ];
    const primary = new ScriptedProvider(primaryScript, { name: 'p' });
    const backup = new ScriptedProvider(['b1', 'b2', 'b3', 'b4', 'b5'], { name: 'b' });
    const fb = new FallbackProvider([primary, backup], { circuitBreaker: { now: () => now, cooldownMs: 1000 } });
    for (let i = 0; i < 3; i++) expect((await fb.chat(req)).provider).toBe('b');
    expect(fb.primaryCircuitOpen).toBe(true);
    expect((await fb.chat(req)).content).toBe('b4');
    expect(primary.requests).toHaveLength(3);
    now = 1000;
    expect(fb.primaryCircuitOpen).toBe(false);
    expect((await fb.chat(req)).content).toBe('primary back');
    expect(primary.requests).toHaveLength(4);
  });

  it('a 400 does not count toward opening the circuit, and a lone provider is never skipped', async () => {
    const primary = new ScriptedProvider(Array.from({ length: 4 }, () => ({ error: scriptedError('bad_request') })));
    const fb = new FallbackProvider([primary, new ScriptedProvider([])]);
    for (let i = 0; i < 4; i++) await expect(fb.chat(req)).rejects.toMatchObject({ kind: 'bad_request' });
    expect(fb.primaryCircuitOpen).toBe(false);
    const alone = new FallbackProvider([new ScriptedProvider(Array.from({ length: 5 }, () => ({ error: scriptedError('server') })))]);
    for (let i = 0; i < 5; i++) await expect(alone.chat(req)).rejects.toMatchObject({ kind: 'server' });
    expect(alone.primaryCircuitOpen).toBe(false);
  });
});
