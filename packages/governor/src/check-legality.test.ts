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
});
