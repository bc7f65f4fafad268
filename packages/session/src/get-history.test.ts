import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { Message } from '@nanobot/schema';
import { findLegalMessageStart } from '@nanobot/governor';
import { getHistory, Session, MIN_COMPACTED_REPLAY_MESSAGES } from './index.js';
import { assistant, call, chat, deepFreeze, toolResult, user } from '../test/helpers.js';

const view = (messages: Message[], lastConsolidated = 0) => deepFreeze({ messages, lastConsolidated });

describe('getHistory (reference session-history behaviours)', () => {
  it('never starts a window with orphan tool results', () => {
    const messages = [
      user('u0'),
      assistant(null, { tool_calls: [call('c1'), call('c2')] }),
      toolResult('c1'),
      toolResult('c2'),
      assistant('done'),
    ];
    for (let max = 1; max <= messages.length; max += 1) {
      const out = getHistory(view(messages), { maxMessages: max });
      if (out.length > 0) expect(out[0].role).not.toBe('tool');
      expect(findLegalMessageStart(out)).toBe(0);
    }
  });

  it("formats CLI app names as Python's `str(item.get('name') or '').strip().lower()`", () => {
    const apps = [
      { name: '\x1c Zoom\x1f', entry_point: '\ufeffcli\ufeff' },
      { name: [], entry_point: 'x' },
      { name: { Key: 1 }, entry_point: {} },
      { name: NaN, entry_point: 0 },
    ];
    const out = getHistory(view([user('hi', { cli_apps: apps }), assistant('ok')]));
    expect(String(out[0]!.content).split('\n').slice(1)).toEqual([
      '[CLI App Attachment: @zoom; tool=run_cli_app; entry_point=\ufeffcli\ufeff; skill=skills/cli-app-zoom/SKILL.md]',
      "[CLI App Attachment: @{'key': 1}; tool=run_cli_app; entry_point=unknown; skill=skills/cli-app-{'key': 1}/SKILL.md]",
      '[CLI App Attachment: @nan; tool=run_cli_app; entry_point=unknown; skill=skills/cli-app-nan/SKILL.md]',
    ]);
  });

  it('a fully archived session still replays its last 8 messages', () => {
    const messages = chat(10);
    const out = getHistory(view(messages, messages.length));
    expect(out).toHaveLength(MIN_COMPACTED_REPLAY_MESSAGES);
    expect(out.map((m) => m.content)).toEqual(['u6', 'a6', 'u7', 'a7', 'u8', 'a8', 'u9', 'a9']);
  });

  it('replays an archived multi-tool turn from its user message even past the message cap', () => {
    const calls = Array.from({ length: 6 }, (_, i) => call(`t${i}`, 'read_file'));
    const messages = [
      ...chat(2),
      user('do the thing'),
      assistant(null, { tool_calls: calls }),
      ...calls.map((c) => toolResult(c.id, 'content', 'read_file')),
      assistant('finished'),
    ];
    const out = getHistory(view(messages, messages.length), { maxMessages: 4 });
    expect(out[0]).toEqual({ role: 'user', content: 'do the thing' });
    expect(out).toHaveLength(9);
    expect(findLegalMessageStart(out)).toBe(0);
  });

  it('preserves reasoning fields and drops storage-only keys', () => {
    const messages = [
      user('q', { timestamp: '2026-01-01T00:00:00', _runtime_context: undefined }),
      assistant('a', { reasoning_content: 'thought', thinking_blocks: [{ type: 'thinking', thinking: 't', signature: 's' }], latency_ms: 5 }),
    ];
    const out = getHistory(view(messages));
    expect(out[1]).toEqual({
      role: 'assistant',
      content: 'a',
      reasoning_content: 'thought',
      thinking_blocks: [{ type: 'thinking', thinking: 't', signature: 's' }],
    });
    expect(out[0]).toEqual({ role: 'user', content: 'q' });
  });

  it('starts at the first user message, or the channel delivery right before it', () => {
    const messages = [assistant('stray'), assistant('proactive', { _channel_delivery: true }), user('reply'), assistant('ok')];
    const out = getHistory(view(messages));
    expect(out.map((m) => m.content)).toEqual(['proactive', 'reply', 'ok']);
  });

  it('skips command rows and blank assistant rows, sanitises assistant text, adds media breadcrumbs', () => {
    const messages = [
      user('/status', { _command: true }),
      assistant('status text', { _command: true }),
      user('look', { media: ['/tmp/a.png'] }),
      assistant('[Message Time: 2026-01-01 10:00]\nHere it is\n[image: /tmp/gen.png]\nmessage(content="x")'),
      assistant('   '),
    ];
    const out = getHistory(view(messages));
    expect(out).toEqual([
      { role: 'user', content: 'look\n[image: /tmp/a.png]' },
      { role: 'assistant', content: 'Here it is' },
    ]);
  });

  it('can strip persisted runtime context exactly', () => {
    const suffix = '[Runtime Context — metadata only, not instructions]\nx\n[/Runtime Context]';
    const messages = [user(`hello\n\n${suffix}`, { _runtime_context: { version: 1, sources: ['s'], suffix } })];
    expect(getHistory(view(messages))[0].content).toBe(`hello\n\n${suffix}`);
    expect(getHistory(view(messages), { includeRuntimeContext: false })[0].content).toBe('hello');
  });

  it('fits maxTokens keeping the newest rows and a user start', () => {
    const messages = chat(50);
    const out = getHistory(view(messages), { maxTokens: 40 });
    expect(out.length).toBeGreaterThan(0);
    expect(out.length).toBeLessThan(100);
    expect(out[0].role).toBe('user');
    expect(out.at(-1)).toEqual({ role: 'assistant', content: 'a49' });
  });

  it('recovers from the last user row when the token tail has none', () => {
    const calls = Array.from({ length: 10 }, (_, i) => call(`t${i}`));
    const messages = [user('u'), assistant(null, { tool_calls: calls }), ...calls.map((c) => toolResult(c.id, 'x'.repeat(200)))];
    const out = getHistory(view(messages), { maxTokens: 10 });
    expect(out[0]).toEqual({ role: 'user', content: 'u' });
    expect(out).toHaveLength(12);
  });

  it('property: output is legal and the input is never mutated', () => {
    const row = fc.oneof(
      fc.constant<Message>(user('u')),
      fc.constant<Message>(assistant('a')),
      fc.nat(3).map((n): Message => assistant(null, { tool_calls: [call(`c${n}`)] })),
      fc.nat(3).map((n): Message => toolResult(`c${n}`)),
    );
    fc.assert(
      fc.property(fc.array(row, { maxLength: 30 }), fc.nat(40), fc.nat(12), fc.nat(200), (messages, lc, max, tokens) => {
        const frozen = view(messages, Math.min(lc, messages.length));
        const out = getHistory(frozen, { maxMessages: max, maxTokens: tokens });
        expect(findLegalMessageStart(out)).toBe(0);
        if (out.length > 0) expect(out[0].role).not.toBe('tool');
        // Without orphans the window starts at a user turn (with one, the reference's legal-start
        // scan may start after it, at an assistant row: the governor restores a user opener).
        if (!messages.some((m) => m.role === 'tool') && out.some((m) => m.role === 'user')) expect(out[0].role).toBe('user');
      }),
      { numRuns: 300 },
    );
  });
});

describe('Session', () => {
  it('retainRecentLegalSuffix(4) keeps the last 4 and rewrites lastConsolidated 7 → 1', () => {
    const session = new Session({ key: 'cli:direct', messages: chat(5), lastConsolidated: 7 });
    const dropped = session.retainRecentLegalSuffix(4);
    expect(dropped).toHaveLength(6);
    expect(session.messages.map((m) => m.content)).toEqual(['u3', 'a3', 'u4', 'a4']);
    expect(session.lastConsolidated).toBe(1);
  });

  it('retainRecentLegalSuffix(0) clears the session', () => {
    const session = new Session({ key: 'k', messages: chat(3), lastConsolidated: 2, metadata: { _last_summary: { text: 's' } } });
    session.providerState = { kind: 'x' };
    session.retainRecentLegalSuffix(0);
    expect(session.messages).toEqual([]);
    expect(session.lastConsolidated).toBe(0);
    expect(session.providerState).toBeNull();
    expect(session.metadata).toEqual({});
  });

  it('does not keep a leading orphan tool result when retaining', () => {
    const messages = [user('u'), assistant(null, { tool_calls: [call('x')] }), toolResult('x'), assistant('a')];
    const session = new Session({ key: 'k', messages });
    session.retainRecentLegalSuffix(2);
    expect(session.messages).toEqual([assistant('a')]);
  });

  it.each([[true], ['3'], [-1], [1.5], [99]])('resets an invalid lastConsolidated (%s) to 0', (value) => {
    expect(new Session({ key: 'k', messages: chat(2), lastConsolidated: value }).lastConsolidated).toBe(0);
  });

  it('addMessage stamps a local ISO timestamp and bumps updatedAt', () => {
    const session = new Session({ key: 'k' }, () => new Date(2026, 0, 2, 3, 4, 5, 6));
    const m = session.addMessage('user', 'hi', { media: ['/a.png'] }, new Date(2026, 0, 2, 3, 4, 5, 6));
    expect(m).toEqual({ role: 'user', content: 'hi', timestamp: '2026-01-02T03:04:05.006000', media: ['/a.png'] });
    expect(session.updatedAt).toBe('2026-01-02T03:04:05.006000');
  });
});
