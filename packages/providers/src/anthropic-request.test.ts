import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { Message } from '@nanobot/schema';
import { buildAnthropicParams, sanitizeAnthropicToolId, toAnthropicMessages } from './anthropic-request.js';
import { deepFreeze } from '@nanobot-internal/test-support';

const call = (id: string, name = 'exec', args = '{}') => ({ id, type: 'function' as const, function: { name, arguments: args } });

describe('toAnthropicMessages', () => {
  it('a call without an id gets the same id on every conversion (the cached prefix stays byte-stable)', () => {
    const history = deepFreeze<Message[]>([
      { role: 'user', content: 'go' },
      { role: 'assistant', content: '', tool_calls: [{ id: '', type: 'function', function: { name: 'read_file', arguments: '{}' } }, { id: 'toolu_missing_1', type: 'function', function: { name: 'read_file', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'toolu_missing_1', content: 'B' },
      { role: 'user', content: 'next' },
    ]);
    const first = JSON.stringify(toAnthropicMessages(history));
    expect(JSON.stringify(toAnthropicMessages(history))).toBe(first);
    const ids = toAnthropicMessages(history).messages[1].content.map((b) => b.id);
    expect(new Set(ids).size).toBe(2);
    for (const id of ids) expect(id).toMatch(/^[a-zA-Z0-9_-]+$/);
  });

  it('keeps every system message (the reference keeps only the last)', () => {
    const out = toAnthropicMessages(deepFreeze<Message[]>([
      { role: 'system', content: 'one' },
      { role: 'user', content: 'hi' },
      { role: 'system', content: [{ type: 'text', text: 'two' }] },
    ]));
    expect(out.system.map((b) => b.text)).toEqual(['one', 'two']);
    expect(out.messages).toEqual([{ role: 'user', content: [{ type: 'text', text: 'hi' }] }]);
  });

  it('merges same-role turns without losing list or string content, and does not mutate', () => {
    const input = deepFreeze<Message[]>([
      { role: 'user', content: [{ type: 'text', text: 'a' }, { type: 'image_url', image_url: { url: 'data:image/png;base64,QUJD' } }] },
      { role: 'user', content: 'b' },
      { role: 'assistant', content: 'x' },
      { role: 'assistant', content: 'y', tool_calls: [call('t1')] },
      { role: 'tool', tool_call_id: 't1', content: 'r' },
    ]);
    const out = toAnthropicMessages(input);
    expect(out.messages[0].content).toEqual([
      { type: 'text', text: 'a' },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'QUJD' } },
      { type: 'text', text: 'b' },
    ]);
    expect(out.messages[1].content).toEqual([{ type: 'text', text: 'x' }, { type: 'text', text: 'y' }, { type: 'tool_use', id: 't1', name: 'exec', input: {} }]);
    expect(out.messages[2]).toEqual({ role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'r' }] });
  });

  it('puts tool results first in a user turn and attaches them to the previous user turn', () => {
    const out = toAnthropicMessages([
      { role: 'user', content: 'go' },
      { role: 'assistant', content: null, tool_calls: [call('a'), call('b')] },
      { role: 'tool', tool_call_id: 'a', content: '' },
      { role: 'user', content: 'interjection' },
      { role: 'tool', tool_call_id: 'b', content: [{ type: 'text', text: 'B' }] },
    ]);
    expect(out.messages[2].content.map((b) => b.type)).toEqual(['tool_result', 'tool_result', 'text']);
    expect(out.messages[2].content[0]).toEqual({ type: 'tool_result', tool_use_id: 'a', content: '(empty)' });
    expect(out.messages[2].content[1]).toEqual({ type: 'tool_result', tool_use_id: 'b', content: [{ type: 'text', text: 'B' }] });
  });

  it('sanitises invalid ids, dedupes repeats and maps results FIFO', () => {
    const out = toAnthropicMessages([
      { role: 'user', content: 'go' },
      { role: 'assistant', content: null, tool_calls: [call('fc:1')] },
      { role: 'tool', tool_call_id: 'fc:1', content: 'one' },
      { role: 'assistant', content: null, tool_calls: [call('fc:1')] },
      { role: 'tool', tool_call_id: 'fc:1', content: 'two' },
    ]);
    const first = sanitizeAnthropicToolId('fc:1');
    expect(first).toMatch(/^fc_1_[0-9a-f]{8}$/);
    const uses = out.messages.filter((m) => m.role === 'assistant').map((m) => m.content[0].id);
    const results = out.messages.filter((m) => m.role === 'user').slice(1).map((m) => m.content[0].tool_use_id);
    expect(uses).toEqual([first, `${first}__dedupe_2`]);
    expect(results).toEqual(uses);
  });

  it('drops trailing assistants, opens with a user turn, and keeps thinking blocks first', () => {
    const out = toAnthropicMessages([
      { role: 'assistant', content: 'earlier', thinking_blocks: [{ type: 'thinking', thinking: 't', signature: 's' }] },
      { role: 'user', content: 'q' },
      { role: 'assistant', content: 'prefill' },
    ]);
    expect(out.messages[0]).toEqual({ role: 'user', content: [{ type: 'text', text: '(conversation continued)' }] });
    expect(out.messages[1].content).toEqual([{ type: 'thinking', thinking: 't', signature: 's' }, { type: 'text', text: 'earlier' }]);
    expect(out.messages.at(-1)!.role).toBe('user');
  });

  it('turns a lone assistant text into a user turn rather than sending nothing', () => {
    const out = toAnthropicMessages([{ role: 'system', content: 's' }, { role: 'assistant', content: 'only me' }]);
    expect(out.messages).toEqual([{ role: 'user', content: [{ type: 'text', text: 'only me' }] }]);
  });

  it('places cache markers on the last system block and the second-to-last turn', () => {
    const out = toAnthropicMessages([{ role: 'system', content: 's' }, { role: 'user', content: 'a' }, { role: 'assistant', content: 'b' }, { role: 'user', content: 'c' }], { cacheControl: true });
    expect(out.system).toEqual([{ type: 'text', text: 's', cache_control: { type: 'ephemeral' } }]);
    expect(out.messages[1].content.at(-1)).toMatchObject({ cache_control: { type: 'ephemeral' } });
    expect(out.messages[2].content.at(-1)).not.toHaveProperty('cache_control');
  });

  it('property: any history → alternating turns, user first and last, no empty turn, input untouched', () => {
    const role = fc.constantFrom('system', 'user', 'assistant', 'tool');
    const content = fc.oneof(fc.constant(''), fc.constant(null), fc.string(), fc.array(fc.record({ type: fc.constant('text'), text: fc.string() }), { maxLength: 2 }));
    const msg = fc.record({ role, content, id: fc.constantFrom('a', 'b', 'c:d') }).map(({ role, content, id }) => {
      if (role === 'tool') return { role, tool_call_id: id, content } as Message;
      if (role === 'assistant') return { role, content, ...(id === 'a' ? { tool_calls: [call(id)] } : {}) } as Message;
      return { role, content } as Message;
    });
    fc.assert(
      fc.property(fc.array(msg, { maxLength: 12 }), (history) => {
        const frozen = deepFreeze(structuredClone(history));
        const { messages } = toAnthropicMessages(frozen);
        expect(frozen).toEqual(history);
        expect(messages[0].role).toBe('user');
        expect(messages.at(-1)!.role).toBe('user');
        for (let i = 1; i < messages.length; i++) expect(messages[i].role).not.toBe(messages[i - 1].role);
        for (const m of messages) {
          expect(m.content.length).toBeGreaterThan(0);
          for (const b of m.content) if (b.type === 'text') expect(b.text).not.toBe('');
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('buildAnthropicParams', () => {
  const base = { messages: [{ role: 'user', content: 'hi' }] as Message[] };
  it('maps reasoning effort to a thinking budget and drops temperature', () => {
    const p = buildAnthropicParams({ ...base, reasoningEffort: 'medium', maxTokens: 1000, temperature: 0.2 }, 'anthropic/claude-x');
    expect(p).toMatchObject({ model: 'claude-x', thinking: { type: 'enabled', budget_tokens: 4096 }, max_tokens: 8192 });
    expect(p).not.toHaveProperty('temperature');
  });
  it('uses adaptive thinking with an effort hint on models without manual budgets', () => {
    const p = buildAnthropicParams({ ...base, reasoningEffort: 'high', maxTokens: 1000 }, 'claude-opus-4-6');
    expect(p).toMatchObject({ thinking: { type: 'adaptive' }, output_config: { effort: 'high' }, max_tokens: 1000 });
    expect(buildAnthropicParams({ ...base, reasoningEffort: 'none' }, 'claude-opus-4-6')).not.toHaveProperty('thinking');
    expect(buildAnthropicParams({ ...base, reasoningEffort: 'adaptive' }, 'claude-sonnet-4-5').thinking).toEqual({ type: 'adaptive' });
  });
  it('maps tool_choice', () => {
    const tools = [{ type: 'function' as const, function: { name: 't', description: '', parameters: { type: 'object' } } }];
    expect(buildAnthropicParams({ ...base, tools, toolChoice: 'required' }, 'c').tool_choice).toEqual({ type: 'any' });
    expect(buildAnthropicParams({ ...base, tools, toolChoice: 'none' }, 'c').tool_choice).toEqual({ type: 'none' });
    expect(buildAnthropicParams({ ...base, tools, toolChoice: { name: 't' } }, 'c').tool_choice).toEqual({ type: 'tool', name: 't' });
    expect(buildAnthropicParams({ ...base, tools, toolChoice: 'required', reasoningEffort: 'low' }, 'c').tool_choice).toEqual({ type: 'auto' });
  });
  it('requires max_tokens, clamped to at least 1', () => {
    expect(buildAnthropicParams({ ...base, maxTokens: 0 }, 'c').max_tokens).toBe(1);
    expect(buildAnthropicParams(base, 'c').max_tokens).toBe(4096);
  });
});

describe('reference behaviours (reference-tests 96-97)', () => {
  it('image_url inside a tool result list becomes a base64 image block; type-less dicts become JSON text', () => {
    const out = toAnthropicMessages([
      { role: 'user', content: 'shot' },
      { role: 'assistant', content: null, tool_calls: [call('s1', 'screenshot')] },
      { role: 'tool', tool_call_id: 's1', content: [{ type: 'image_url', image_url: { url: 'data:image/jpeg;base64,/9j/' } }, { foo: 'bar' } as never] },
    ]);
    expect(out.messages[2].content[0]).toEqual({
      type: 'tool_result',
      tool_use_id: 's1',
      content: [{ type: 'image', source: { type: 'base64', media_type: 'image/jpeg', data: '/9j/' } }, { type: 'text', text: '{"foo": "bar"}' }],
    });
  });

  it('a lone tool_use assistant is never re-labelled as user; the request still has a user turn', () => {
    const out = toAnthropicMessages([{ role: 'assistant', content: 'x', tool_calls: [call('t')] }]);
    expect(out.messages).toEqual([{ role: 'user', content: [{ type: 'text', text: '(empty)' }] }]);
  });
});

describe('sanitizeAnthropicToolId', () => {
  const nodeSha1 = (text: string): string => createHash('sha1').update(text, 'utf8').digest('hex');

  it("gives the reference's id: prefix and node:crypto's sha1 prefix, byte for byte", () => {
    // The reference: f"{safe_prefix}_{hashlib.sha1(tid.encode()).hexdigest()[:8]}".
    const reference = (id: string): string => {
      if (/^[a-zA-Z0-9_-]+$/.test(id)) return id;
      const prefix = id.replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, 48).replace(/^_+|_+$/g, '') || 'toolu';
      return `${prefix}_${nodeSha1(id).slice(0, 8)}`;
    };
    expect(sanitizeAnthropicToolId('call|1.2')).toBe(`call_1_2_${nodeSha1('call|1.2').slice(0, 8)}`);
    fc.assert(fc.property(fc.string({ unit: 'binary', minLength: 1, maxLength: 80 }), (id) => sanitizeAnthropicToolId(id) === reference(id)), { numRuns: 500 });
  });
});
