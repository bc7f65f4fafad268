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

  describe('continuation: a stored history as the prefix of the next request', () => {
    const u = { role: 'user', content: 'u' };
    const a = { role: 'assistant', content: 'a' };
    const calls = { role: 'assistant', content: '', tool_calls: [call('a')] };
    const result = { role: 'tool', tool_call_id: 'a', content: 'r' };
    it('a history ending with its answer is legal to continue for every target', () => {
      for (const target of ['anthropic', 'any'] as const) expect(rules([u, calls, result, a], { target })).toEqual(['ends-with-assistant']);
      for (const target of ['openai', 'anthropic', 'any'] as const) expect(rules([u, calls, result, a], { target, continuation: true })).toEqual([]);
      expect(rules([], { target: 'any', continuation: true })).toEqual([]);
    });

    it('what the next user message cannot follow is reported at the last stored message', () => {
      const twice = checkLegality([u, a, u] as Message[], { target: 'anthropic', continuation: true });
      expect(twice.map((v) => [v.rule, v.index])).toEqual([['consecutive-same-role', 2]]);
      expect(twice[0]!.message).toMatch(/next user message/);
      // OpenAI accepts two user turns in a row; an unanswered call nobody accepts.
      expect(rules([u, a, u], { target: 'openai', continuation: true })).toEqual([]);
      expect(rules([u, calls], { continuation: true })).toEqual(['unanswered-tool-call']);
      // A stored history that holds a turn twice (a duplicated tool-call message) is not legal.
      expect(rules([u, calls, calls, result, a], { target: 'any', continuation: true })).toEqual(['unanswered-tool-call', 'duplicate-tool-call-id', 'consecutive-same-role']);
      // Tool results are the user turn for Anthropic: the next user text joins them.
      expect(rules([u, calls, result], { target: 'anthropic', continuation: true })).toEqual([]);
    });

    it('the budget is checked on the stored history alone; the input is not mutated', () => {
      const history = deepFreezeList([u, a]);
      expect(rules(history, { continuation: true, budget: 1000 })).toEqual([]);
      expect(rules([{ role: 'user', content: 'word '.repeat(500) }, a], { continuation: true, budget: 100 })).toEqual(['over-budget']);
    });
  });
});

function deepFreezeList<T>(list: T[]): T[] {
  for (const item of list) Object.freeze(item);
  return Object.freeze(list) as T[];
}

