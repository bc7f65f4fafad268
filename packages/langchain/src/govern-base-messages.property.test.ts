import type { BaseMessage } from '@langchain/core/messages';
import { deepFreeze } from '@nanobot-internal/test-support';
import { checkLegality } from '@nanobot/governor';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { governBaseMessages } from './govern-base-messages.js';
import { fromGovernorView } from './internal/from-governor-messages.js';
import { DialectMemo } from '@nanobot/governor/dialect';
import { toGovernorView } from './internal/to-governor-messages.js';
import { damagedHistory, validHistory } from './test-support/arbitrary-base-messages.js';

/** What a model (and a store) sees of a message. */
function fields(m: BaseMessage): Record<string, unknown> {
  const r = m as unknown as Record<string, unknown>;
  const out: Record<string, unknown> = { type: m.type, content: m.content };
  for (const k of ['id', 'name', 'additional_kwargs', 'response_metadata', 'tool_calls', 'invalid_tool_calls', 'usage_metadata', 'tool_call_id', 'status', 'artifact']) {
    if (r[k] !== undefined) out[k] = r[k];
  }
  return out;
}

describe('LangChain BaseMessage round trips', () => {
  it('a valid history comes back as the same array, untouched', () => {
    fc.assert(
      fc.property(validHistory, (history) => {
        deepFreeze(history);
        const snapshot = history.map(fields);
        const { messages, report } = governBaseMessages(history);
        expect(messages).toBe(history);
        expect(report.steps.every((s) => !s.changed)).toBe(true);
        expect(history.map(fields)).toEqual(snapshot);
      }),
      { numRuns: 150 },
    );
  });

  it('there and back is the identity, and rebuilt from copies every field and block is kept', () => {
    fc.assert(
      fc.property(fc.oneof(validHistory, damagedHistory), (history) => {
        deepFreeze(history);
        const view = toGovernorView(history, 'test', new DialectMemo());
        const same = fromGovernorView(history, view, [...view], new DialectMemo());
        same.forEach((m, i) => expect(m).toBe(history[i]));
        const rebuilt = fromGovernorView(history, view, view.map((m) => ({ ...m })), new DialectMemo());
        expect(rebuilt.map(fields)).toEqual(history.map(fields));
        rebuilt.forEach((m, i) => {
          expect(m).not.toBe(history[i]);
          expect(m.content).toBe(history[i].content);
          expect(m.constructor).toBe(history[i].constructor);
        });
      }),
      { numRuns: 150 },
    );
  });

  it('a damaged history comes out legal for OpenAI and Anthropic; what the governor did not touch is the input object', () => {
    fc.assert(
      fc.property(damagedHistory, (history) => {
        deepFreeze(history);
        const snapshot = history.map(fields);
        const { messages } = governBaseMessages(history);
        expect(checkLegality(toGovernorView(messages, 'test', new DialectMemo()), { target: 'any' })).toEqual([]);
        const inputs = new Set(history);
        for (const m of messages) {
          // Only results are made anew here: backfills for the lost ones.
          if (!inputs.has(m)) expect(m.type).toBe('tool');
        }
        expect(history.map(fields)).toEqual(snapshot);
      }),
      { numRuns: 150 },
    );
  });
});
