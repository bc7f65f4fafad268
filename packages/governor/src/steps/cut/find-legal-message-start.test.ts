import { describe, expect, it } from 'vitest';
import type { Message } from '@nanobot/schema';
import { findLegalMessageStart } from './find-legal-message-start.js';
import { deepFreeze, loadCases } from '@nanobot-internal/test-support';

describe('conformance helpers.find_legal_message_start', () => {
  const cases = loadCases('helpers/helpers.json').filter((c) => c.fn === 'helpers.find_legal_message_start');
  it('has cases', () => expect(cases.length).toBeGreaterThan(40));
  it.each(cases.map((c) => [c.name, c] as const))('%s', (_n, c) => {
    expect(findLegalMessageStart(deepFreeze(c.input.messages as Message[]))).toBe(c.expected);
  });
});

it('restarts after the last undeclared result', () => {
  const msgs: Message[] = [
    { role: 'tool', tool_call_id: 'a', content: 'x' },
    { role: 'assistant', content: '', tool_calls: [{ id: 'b', type: 'function', function: { name: 'e', arguments: '{}' } }] },
    { role: 'tool', tool_call_id: 'b', content: 'ok' },
    { role: 'tool', tool_call_id: 'z', content: 'stray' },
    { role: 'user', content: 'u' },
  ];
  expect(findLegalMessageStart(msgs)).toBe(4);
});
