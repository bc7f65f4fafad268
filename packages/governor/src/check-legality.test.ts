import { describe, expect, it } from 'vitest';
import type { Message } from '@nanobot/schema';
import { checkLegality } from './check-legality.js';

const call = (id: unknown, name: unknown = 'exec') => ({ id, type: 'function', function: { name, arguments: '{}' } });
const rules = (msgs: unknown[], opts = {}) => checkLegality(msgs as Message[], opts).map((v) => v.rule);

describe('checkLegality', () => {
  it('accepts a legal request', () => {
    expect(rules([{ role: 'system', content: 's' }, { role: 'user', content: 'u' }, { role: 'assistant', content: '', tool_calls: [call('a')] }, { role: 'tool', tool_call_id: 'a', content: 'r' }], { request: true })).toEqual([]);
  });

  it('names each broken rule', () => {
    expect(rules([{ role: 'assistant', tool_calls: [call('a')] }, { role: 'user', content: 'u' }])).toEqual(['unanswered-tool-call']);
    expect(rules([{ role: 'tool', tool_call_id: 'x', content: 'r' }])).toEqual(['orphan-tool-result']);
    expect(rules([{ role: 'tool', content: 'r' }])).toEqual(['orphan-tool-result']);
    expect(rules([{ role: 'assistant', tool_calls: [call('a')] }, { role: 'tool', tool_call_id: 'a' }, { role: 'tool', tool_call_id: 'a' }])).toEqual(['duplicate-tool-result']);
    expect(rules([{ role: 'assistant', tool_calls: [call('a')] }, { role: 'tool', tool_call_id: 'a' }, { role: 'assistant', tool_calls: [call('a')] }, { role: 'tool', tool_call_id: 'a' }])).toEqual(['duplicate-tool-call-id']);
    expect(rules([{ role: 'assistant', tool_calls: [call('')] }])).toEqual(['tool-call-id-missing']);
    expect(rules([{ role: 'assistant', tool_calls: [call('a', null)] }, { role: 'tool', tool_call_id: 'a' }])).toEqual(['invalid-tool-call']);
    expect(rules([{ role: 'assistant', tool_calls: 'x' }])).toEqual(['tool-calls-not-list']);
    expect(rules([{ role: 'user', content: 'u', tool_calls: [call('a')] }])).toEqual(['tool-calls-on-non-assistant']);
    expect(rules([null])).toEqual(['invalid-message']);
    // A result separated from its call by another message.
    expect(rules([{ role: 'assistant', tool_calls: [call('a')] }, { role: 'user', content: 'u' }, { role: 'tool', tool_call_id: 'a' }])).toEqual(['unanswered-tool-call', 'orphan-tool-result']);
  });

  it('checks role rules of a final request', () => {
    expect(rules([{ role: 'system', content: 's' }, { role: 'assistant', content: 'a' }], { request: true })).toEqual(['first-not-user', 'ends-with-assistant']);
    expect(rules([{ role: 'user', content: 'a' }, { role: 'user', content: 'b' }], { request: true })).toEqual(['consecutive-same-role']);
  });

  it('checks the budget with the prompt estimate', () => {
    expect(rules([{ role: 'user', content: 'word '.repeat(500) }], { budget: 100 })).toEqual(['over-budget']);
    expect(rules([{ role: 'user', content: 'hi' }], { budget: 100 })).toEqual([]);
  });

  describe('with a target: the rules each API states', () => {
    const u = { role: 'user', content: 'u' };
    const a = { role: 'assistant', content: 'a' };
    it('OpenAI: content present unless an assistant has tool calls, no empty content list, known roles, user first', () => {
      expect(rules([u, { role: 'assistant', content: null }], { target: 'openai' })).toEqual(['empty-content']);
      expect(rules([u, { role: 'assistant' }], { target: 'openai' })).toEqual(['empty-content']);
      expect(rules([u, { role: 'assistant', content: null, tool_calls: [call('a')] }, { role: 'tool', tool_call_id: 'a', content: 'r' }], { target: 'openai' })).toEqual([]);
      expect(rules([{ role: 'user', content: [] }], { target: 'openai' })).toEqual(['empty-content']);
      expect(rules([{ role: 'user', content: null }], { target: 'openai' })).toEqual(['empty-content']);
      expect(rules([u, { role: 'critic', content: 'x' }], { target: 'openai' })).toEqual(['unknown-role']);
      expect(rules([a, u], { target: 'openai' })).toEqual(['first-not-user']);
      // What OpenAI accepts: whitespace, same-role turns, an assistant last, system anywhere, developer.
      expect(rules([{ role: 'developer', content: 'd' }, u, { role: 'user', content: '  ' }, { role: 'system', content: 's' }, a, a], { target: 'openai' })).toEqual([]);
    });

    it('Anthropic: no blank text anywhere, instructions only at the head, no developer, strict alternation, a user turn last', () => {
      expect(rules([{ role: 'user', content: ' \n' }], { target: 'anthropic' })).toEqual(['empty-content']);
      expect(rules([{ role: 'user', content: '' }], { target: 'anthropic' })).toEqual(['empty-content']);
      expect(rules([{ role: 'user', content: [{ type: 'text', text: 'x' }, { type: 'text', text: '' }] }], { target: 'anthropic' })).toEqual(['blank-text']);
      expect(rules([u, { role: 'assistant', content: '\n\n', tool_calls: [call('a')] }, { role: 'tool', tool_call_id: 'a', content: 'r' }], { target: 'anthropic' })).toEqual(['blank-text']);
      expect(rules([u, { role: 'assistant', content: '', tool_calls: [call('a')] }, { role: 'tool', tool_call_id: 'a', content: '' }], { target: 'anthropic' })).toEqual(['empty-content']);
      expect(rules([{ role: 'system', content: ' ' }, u], { target: 'anthropic' })).toEqual(['empty-content']);
      expect(rules([u, a, { role: 'system', content: 's' }, u], { target: 'anthropic' })).toEqual(['instruction-after-start']);
      expect(rules([{ role: 'developer', content: 'd' }, u], { target: 'anthropic' })).toEqual(['developer-role']);
      expect(rules([u, u], { target: 'anthropic' })).toEqual(['consecutive-same-role']);
      expect(rules([u, a], { target: 'anthropic' })).toEqual(['ends-with-assistant']);
      expect(rules([u, { role: 'function', name: 'f', content: 'x' }], { target: 'anthropic' })).toEqual(['unknown-role']);
      // Tool results are the user turn: a user text right after them is legal.
      expect(rules([u, { role: 'assistant', content: null, tool_calls: [call('a')] }, { role: 'tool', tool_call_id: 'a', content: 'r' }, u], { target: 'anthropic' })).toEqual([]);
    });

    it("'any' is both", () => {
      expect(rules([u, { role: 'assistant', content: null }], { target: 'any' })).toEqual(['empty-content', 'ends-with-assistant']);
      expect(rules([{ role: 'system', content: 's' }, u, a, u], { target: 'any' })).toEqual([]);
    });
  });
});
