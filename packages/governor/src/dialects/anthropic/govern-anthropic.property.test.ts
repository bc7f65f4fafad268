import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { deepFreeze } from '@nanobot-internal/test-support';
import { MemoryArtifactStore } from '../../offload/memory-artifact-store.js';
import { anthropicRequestViolations } from '../../test-support/anthropic-request-rules.js';
import { arbitraryAnthropicHistory } from '../../test-support/arbitrary-dialect-histories.js';
import { arbitraryBudget, arbitraryHistory } from '../../test-support/arbitrary-history.js';
import { toAnthropicHistory } from '../../test-support/dialect-histories.js';
import type { AnthropicBlockLike, AnthropicMessageLike } from './anthropic-types.js';
import { governAnthropic } from './govern-anthropic.js';

const blocksOf = (m: AnthropicMessageLike): readonly AnthropicBlockLike[] => (typeof m.content === 'string' ? [] : m.content);

describe('governAnthropic on valid native histories', () => {
  it('gives back the very same objects when nothing needs governing (lossless round trip)', () => {
    fc.assert(
      fc.property(arbitraryAnthropicHistory, (history) => {
        const input = deepFreeze(history);
        const out = governAnthropic(input);
        expect(out.system).toBe(input.system);
        expect(out.messages.length).toBe(input.messages.length);
        out.messages.forEach((m, i) => expect(m).toBe(input.messages[i]));
        expect(out.report.steps.filter((s) => s.changed)).toEqual([]);
        expect(anthropicRequestViolations(out.messages)).toEqual([]);
      }),
      { numRuns: 150 },
    );
  });

  it('under a budget, keeps every block it did not change as the same object, each in a turn of its own source turn', () => {
    fc.assert(
      fc.property(arbitraryAnthropicHistory, fc.integer({ min: 60, max: 1500 }), (history, budget) => {
        const input = deepFreeze(history);
        const out = governAnthropic(input, { contextWindowTokens: budget, contextBlockLimit: budget, maxToolResultChars: 40, artifactStore: new MemoryArtifactStore(), sessionKey: 's' });
        expect(anthropicRequestViolations(out.messages)).toEqual([]);
        const source = new Map<object, AnthropicMessageLike>();
        for (const m of input.messages) for (const b of blocksOf(m)) source.set(b, m);
        for (const m of out.messages) {
          const turns = new Set(blocksOf(m).map((b) => source.get(b)).filter((s) => s !== undefined));
          // Blocks of one assistant turn stay together: thinking with its tool_use and text.
          if (m.role === 'assistant') expect(turns.size).toBeLessThanOrEqual(1);
          for (const b of blocksOf(m)) {
            const t = (b as { type: string }).type;
            // Thinking, images, documents and server blocks are never rewritten.
            if (['thinking', 'redacted_thinking', 'image', 'document', 'server_tool_use', 'web_search_tool_result'].includes(t)) expect(source.has(b)).toBe(true);
          }
        }
        // A tool_result the governor rewrote (offloaded) keeps is_error and cache_control.
        const results = new Map<string, Record<string, unknown>>();
        for (const m of input.messages) for (const b of blocksOf(m)) if (b.type === 'tool_result') results.set(String((b as { tool_use_id?: unknown }).tool_use_id), b as unknown as Record<string, unknown>);
        for (const m of out.messages) {
          for (const b of blocksOf(m)) {
            if (b.type !== 'tool_result' || source.has(b)) continue;
            const from = results.get(String((b as { tool_use_id?: unknown }).tool_use_id));
            if (from === undefined) continue;
            expect((b as { is_error?: unknown }).is_error).toBe(from.is_error);
            expect((b as { cache_control?: unknown }).cache_control).toEqual(from.cache_control);
          }
        }
      }),
      { numRuns: 120 },
    );
  });
});

describe('governAnthropic on damaged histories', () => {
  it('always returns a request the Messages API accepts, without touching the input', () => {
    fc.assert(
      fc.property(arbitraryHistory, arbitraryBudget, (history, budget) => {
        const stored = deepFreeze(toAnthropicHistory(history));
        // A request needs a user turn with words (not only tool results) to send at all.
        fc.pre(stored.messages.some((m) => m.role === 'user' && (typeof m.content === 'string' || m.content.some((b) => b.type !== 'tool_result'))));
        const snapshot = JSON.stringify(stored);
        const out = governAnthropic(stored, { ...budget, onOverflow: 'send' });
        expect(JSON.stringify(stored)).toBe(snapshot);
        expect(anthropicRequestViolations(out.messages)).toEqual([]);
        expect(JSON.parse(JSON.stringify(out.report))).toEqual(out.report);
      }),
      { numRuns: 300 },
    );
  });
});

describe('governAnthropic on a growing history', () => {
  it('gives the same request as a cold call on a copy, whatever was governed before', () => {
    fc.assert(
      fc.property(arbitraryHistory, arbitraryBudget, fc.array(fc.nat(30), { maxLength: 4 }), (history, budget, cuts) => {
        const stored = deepFreeze(toAnthropicHistory(history));
        fc.pre(stored.messages.length > 0);
        const options = { ...budget, onOverflow: 'send' as const };
        // Earlier requests on prefixes (and a repeat), as a client governs a growing history.
        for (const cut of cuts) governAnthropic({ ...stored, messages: stored.messages.slice(0, 1 + (cut % stored.messages.length)) }, options);
        governAnthropic(stored, options);
        const warm = governAnthropic(stored, options);
        const cold = governAnthropic(structuredClone(stored), options);
        expect(warm.messages).toEqual(cold.messages);
        expect(warm.report).toEqual(cold.report);
      }),
      { numRuns: 150 },
    );
  });
});
