import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { Message } from '@nanobot/schema';
import { buildOpenAIParams, toOpenAIMessages } from './openai-request.js';
import { moveToolAttachmentsToUser } from './move-tool-attachments.js';
import { deepFreeze } from '@nanobot-internal/test-support';

describe('toOpenAIMessages', () => {
  it('serialises a message the same whatever the key order it was stored in (a session replay keeps the prefix cache)', () => {
    const sent = deepFreeze<Message[]>([
      { role: 'user', content: 'q', timestamp: 't1' },
      { role: 'assistant', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'read_file', arguments: '{"path": "a"}' } }], content: 'reading' },
      { role: 'tool', tool_call_id: 'c1', name: 'read_file', content: 'A' },
    ]);
    const replayed = deepFreeze<Message[]>([
      { content: 'q', role: 'user' },
      { role: 'assistant', content: 'reading', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'read_file', arguments: '{"path": "a"}' } }] },
      { role: 'tool', content: 'A', name: 'read_file', tool_call_id: 'c1', timestamp: 't2' },
    ]);
    expect(JSON.stringify(toOpenAIMessages(replayed))).toBe(JSON.stringify(toOpenAIMessages(sent)));
    expect(Object.keys(toOpenAIMessages(sent)[2])).toEqual(['role', 'content', 'tool_call_id', 'name']);
  });

  it('keeps assistant text next to tool calls (the reference nulls it) and repairs replayed arguments', () => {
    const out = toOpenAIMessages(deepFreeze<Message[]>([
      { role: 'user', content: 'go' },
      { role: 'assistant', content: 'Let me look.', tool_calls: [{ id: 'c', type: 'function', function: { name: 'ls', arguments: "{'path': '.'}" } }] },
      { role: 'tool', tool_call_id: 'c', content: 'x' },
    ]));
    expect(out[1]).toEqual({ role: 'assistant', content: 'Let me look.', tool_calls: [{ id: 'c', type: 'function', function: { name: 'ls', arguments: '{"path": "."}' } }] });
  });

  it('can null the text next to tool calls for gateways that reject the mix (reference behaviour)', () => {
    const out = toOpenAIMessages([{ role: 'user', content: 'go' }, { role: 'assistant', content: 'Looking.', tool_calls: [{ id: 'c', type: 'function', function: { name: 'ls', arguments: '{}' } }] }, { role: 'tool', tool_call_id: 'c', content: 'x' }], { nullContentWithToolCalls: true });
    expect(out[1].content).toBeNull();
  });

  it('applies role alternation on the copy (trailing assistant removed, same-role merged)', () => {
    const input = deepFreeze<Message[]>([{ role: 'user', content: 'a' }, { role: 'user', content: 'b' }, { role: 'assistant', content: 'c' }]);
    const out = toOpenAIMessages(input);
    expect(out).toEqual([{ role: 'user', content: 'a\n\nb' }]);
    expect(input).toHaveLength(3);
  });

  it('adds cache markers for Claude behind an OpenAI-compatible gateway', () => {
    const p = buildOpenAIParams({ messages: [{ role: 'system', content: 's' }, { role: 'user', content: 'u' }, { role: 'assistant', content: 'a', tool_calls: [{ id: 'c', type: 'function', function: { name: 'x', arguments: '{}' } }] }, { role: 'tool', tool_call_id: 'c', content: 'r' }] }, 'anthropic/claude-sonnet');
    const messages = p.messages as Message[];
    expect(messages[0].content).toEqual([{ type: 'text', text: 's', cache_control: { type: 'ephemeral' } }]);
    expect(messages[2].content).toEqual([{ type: 'text', text: 'a', cache_control: { type: 'ephemeral' } }]);
  });

  it('uses max_completion_tokens and omits temperature for reasoning models with an effort', () => {
    const p = buildOpenAIParams({ messages: [{ role: 'user', content: 'q' }], maxTokens: 100, temperature: 0.3, reasoningEffort: 'high' }, 'o3-mini');
    expect(p).toMatchObject({ max_completion_tokens: 100, reasoning_effort: 'high' });
    expect(p).not.toHaveProperty('temperature');
    expect(p).not.toHaveProperty('max_tokens');
    const q = buildOpenAIParams({ messages: [{ role: 'user', content: 'q' }], temperature: 0.3, extraBody: { top_k: 5 } }, 'llama3');
    expect(q).toMatchObject({ temperature: 0.3, top_k: 5 });
  });

  it('gives an aborted assistant turn (content null, no calls) the empty placeholder; OpenAI rejects null there', () => {
    const input = deepFreeze<Message[]>([
      { role: 'user', content: 'plan it' },
      { role: 'assistant', content: null, reasoning_content: 'The user wants a plan' },
      { role: 'user', content: 'still there?' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'c', type: 'function', function: { name: 'ls', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'c', name: 'ls', content: 'a.txt' },
      { role: 'assistant' },
      { role: 'user', content: 'go on' },
    ]);
    expect(toOpenAIMessages(input)).toEqual([
      { role: 'user', content: 'plan it' },
      { role: 'assistant', content: '(empty)', reasoning_content: 'The user wants a plan' },
      { role: 'user', content: 'still there?' },
      // Content may be null next to tool calls, so it stays null.
      { role: 'assistant', content: null, tool_calls: [{ id: 'c', type: 'function', function: { name: 'ls', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'c', name: 'ls', content: 'a.txt' },
      { role: 'assistant', content: '(empty)' },
      { role: 'user', content: 'go on' },
    ]);
  });

  it('fills null and empty-list content of user, system and tool messages too', () => {
    const out = toOpenAIMessages(deepFreeze<Message[]>([
      { role: 'system', content: [] },
      { role: 'user', content: null },
      { role: 'assistant', content: [], tool_calls: [{ id: 'c', type: 'function', function: { name: 'ls', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'c' },
    ]));
    expect(out.map((m) => m.content)).toEqual(['(empty)', '(empty)', null, '(empty)']);
  });

  it('a null assistant merged with a neighbour by role alternation adds no placeholder text', () => {
    const out = toOpenAIMessages(deepFreeze<Message[]>([{ role: 'user', content: 'q' }, { role: 'assistant', content: null }, { role: 'assistant', content: 'a' }, { role: 'user', content: 'more' }]));
    expect(out).toEqual([{ role: 'user', content: 'q' }, { role: 'assistant', content: 'a' }, { role: 'user', content: 'more' }]);
  });

  it('moves images out of tool results into one user message after the block of results, merged with the next user turn', () => {
    const png = { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } };
    const jpg = { type: 'image_url', image_url: { url: 'https://example.test/b.jpg' } };
    const input = deepFreeze<Message[]>([
      { role: 'user', content: 'look at both' },
      { role: 'assistant', content: null, tool_calls: [
        { id: 'r1', type: 'function', function: { name: 'read', arguments: '{"path": "a.png"}' } },
        { id: 'r2', type: 'function', function: { name: 'ls', arguments: '{}' } },
        { id: 'r3', type: 'function', function: { name: 'read', arguments: '{"path": "b.jpg"}' } },
      ] },
      { role: 'tool', tool_call_id: 'r1', name: 'read', content: [{ type: 'text', text: 'Read image file [image/png]' }, png] },
      { role: 'tool', tool_call_id: 'r2', name: 'ls', content: 'a.png b.jpg' },
      { role: 'tool', tool_call_id: 'r3', name: 'read', content: [jpg] },
      { role: 'user', content: 'which is bigger?' },
    ]);
    const before = structuredClone(input);
    const out = toOpenAIMessages(input);
    expect(out.slice(2)).toEqual([
      { role: 'tool', tool_call_id: 'r1', name: 'read', content: 'Read image file [image/png]\n[image: attached to the next user message]' },
      { role: 'tool', tool_call_id: 'r2', name: 'ls', content: 'a.png b.jpg' },
      { role: 'tool', tool_call_id: 'r3', name: 'read', content: '[image: attached to the next user message]' },
      { role: 'user', content: [
        { type: 'text', text: 'Attachments from the read tool result (r1):' }, png,
        { type: 'text', text: 'Attachments from the read tool result (r3):' }, jpg,
        { type: 'text', text: 'which is bigger?' },
      ] },
    ]);
    expect(input).toEqual(before);
  });

  it('each block of tool results gets its own user message; one at the very end stays the last message', () => {
    const shot = (id: string): Message[] => [
      { role: 'assistant', content: null, tool_calls: [{ id, type: 'function', function: { name: 'screenshot', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: id, content: [{ type: 'image_url', image_url: { url: `data:image/png;base64,${id}` } }] },
    ];
    const out = toOpenAIMessages(deepFreeze<Message[]>([{ role: 'user', content: 'watch' }, ...shot('s1'), ...shot('s2')]));
    expect(out.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'user', 'assistant', 'tool', 'user']);
    expect(out[3].content).toEqual([{ type: 'text', text: 'Attachments from tool result s1:' }, { type: 'image_url', image_url: { url: 'data:image/png;base64,s1' } }]);
    expect(out[6].content).toEqual([{ type: 'text', text: 'Attachments from tool result s2:' }, { type: 'image_url', image_url: { url: 'data:image/png;base64,s2' } }]);
  });

  it('moveToolAttachmentsToUser: audio and file parts move too; text-only tool results and other roles are left as they are', () => {
    const plain = deepFreeze<Message[]>([
      { role: 'user', content: [{ type: 'image_url', image_url: { url: 'u' } }] },
      { role: 'assistant', content: null, tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'c', content: [{ type: 'text', text: 'only text' }] },
    ]);
    expect(moveToolAttachmentsToUser(plain)).toBe(plain);
    const out = moveToolAttachmentsToUser(deepFreeze<Message[]>([
      { role: 'tool', tool_call_id: 'c', name: 'f', content: [{ type: 'input_audio', input_audio: { data: 'x', format: 'wav' } }, { type: 'file', file: { file_id: 'f1' } }, { type: 'other', v: 1 }] },
    ]));
    expect(out).toEqual([
      { role: 'tool', tool_call_id: 'c', name: 'f', content: '[audio: attached to the next user message]\n[file: attached to the next user message]\n{"type":"other","v":1}' },
      { role: 'user', content: [{ type: 'text', text: 'Attachments from the f tool result (c):' }, { type: 'input_audio', input_audio: { data: 'x', format: 'wav' } }, { type: 'file', file: { file_id: 'f1' } }] },
    ]);
  });

  it('property: output alternates, never ends on the assistant, has no empty-string content, internal keys or lone surrogates; input untouched', () => {
    const text = fc.oneof(fc.constant(''), fc.string(), fc.constant('\ud800x'), fc.constant('ok \udc00'));
    const image = fc.constant({ type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } });
    const parts = fc.array(fc.oneof(text.map((t) => ({ type: 'text', text: t })), image), { maxLength: 3 });
    const calls = [{ id: 'x', type: 'function' as const, function: { name: 'f', arguments: '{}' } }];
    const msg = fc
      .record({ role: fc.constantFrom('system', 'user', 'assistant', 'tool'), content: fc.oneof(text, fc.constant(null), fc.constant(undefined), parts), calls: fc.boolean(), _meta: fc.constant({ a: 1 }), timestamp: fc.constant('t') })
      .map(({ calls: withCalls, content, ...m }) => {
        const base = (content === undefined ? m : { ...m, content }) as Message;
        if (m.role === 'tool') return { ...base, tool_call_id: 'x' } as Message;
        // Images are only valid from users and tools; other roles get text only.
        if (m.role !== 'user' && Array.isArray(content)) return { ...base, content: content.filter((p) => p.type === 'text') } as Message;
        return (m.role === 'assistant' && withCalls ? { ...base, tool_calls: calls } : base) as Message;
      });
    fc.assert(
      fc.property(fc.array(msg, { maxLength: 10 }), (history) => {
        const frozen = deepFreeze(structuredClone(history));
        const out = toOpenAIMessages(frozen);
        expect(frozen).toEqual(history);
        out.forEach((m, i) => {
          if (i > 0 && (m.role === 'user' || m.role === 'assistant')) expect(m.role).not.toBe(out[i - 1].role);
        });
        if (out.length > 0) expect(out.at(-1)!.role).not.toBe('assistant');
        for (const m of out) {
          expect(m.content).not.toBe('');
          expect(m).not.toHaveProperty('_meta');
          expect(m).not.toHaveProperty('timestamp');
          expect(JSON.stringify(m)).not.toMatch(/\\ud[89ab][0-9a-f]{2}(?!\\ud[c-f])/i);
          // Content is required (a string or parts) except next to tool calls.
          if (!(m.role === 'assistant' && m.tool_calls?.length)) expect(typeof m.content === 'string' || (Array.isArray(m.content) && m.content.length > 0)).toBe(true);
          if (m.role === 'tool') expect(typeof m.content === 'string' || (Array.isArray(m.content) && m.content.every((p) => p.type === 'text'))).toBe(true);
        }
        // No image is lost: tool-result images are moved, not dropped.
        const images = (list: readonly Message[]) => list.flatMap((m) => (Array.isArray(m.content) ? m.content : [])).filter((p) => p.type === 'image_url').length;
        expect(images(out)).toBe(images(history));
      }),
      { numRuns: 300 },
    );
  });
});
