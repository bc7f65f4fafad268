import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { Message } from '@nanobot/schema';
import { buildOpenAIParams, toOpenAIMessages } from './openai-request.js';
import { deepFreeze } from './test-support/deep-freeze.js';

describe('toOpenAIMessages', () => {
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

  it('property: output alternates, never ends on the assistant, has no empty-string content, internal keys or lone surrogates; input untouched', () => {
    const text = fc.oneof(fc.constant(''), fc.string(), fc.constant('\ud800x'), fc.constant('ok \udc00'));
    const msg = fc.record({ role: fc.constantFrom('system', 'user', 'assistant', 'tool'), content: fc.oneof(text, fc.constant(null)), _meta: fc.constant({ a: 1 }), timestamp: fc.constant('t') }).map((m) => (m.role === 'tool' ? { ...m, tool_call_id: 'x' } : m) as Message);
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
        }
      }),
      { numRuns: 300 },
    );
  });
});
