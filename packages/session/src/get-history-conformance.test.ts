import { describe, expect, it } from 'vitest';
import type { Message } from '@nanobot/schema';
import { getHistory } from './index.js';
import { loadCases } from '@nanobot-internal/test-support';
import { deepFreeze } from '../test/helpers.js';

// Generated once from the reference's own Session.get_history (see
// fixtures/conformance/session/README.md); every case must match exactly.
const cases = loadCases('session/get_history.json');

interface Input {
  messages: Message[];
  last_consolidated: number;
  options: { max_messages?: number; max_tokens?: number; extend_to_user?: boolean; include_runtime_context?: boolean };
}

describe('conformance: Session.get_history (reference replay rules)', () => {
  it('has the expected number of cases', () => {
    expect(cases.length).toBe(35);
  });
  it.each(cases.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const input = deepFreeze(structuredClone(c.input)) as unknown as Input;
    const o = input.options;
    const got = getHistory(
      { messages: input.messages, lastConsolidated: input.last_consolidated },
      { maxMessages: o.max_messages, maxTokens: o.max_tokens, extendToUser: o.extend_to_user, includeRuntimeContext: o.include_runtime_context },
    );
    expect(got).toEqual(c.expected);
  });
});
