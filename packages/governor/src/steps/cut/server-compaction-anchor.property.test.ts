// Generated histories with server compaction anchors (Anthropic blocks on assistant turns,
// Responses items as their own messages), governed at random budgets: the copy is legal for the
// target, and whenever it keeps a message that came after the newest anchor, it keeps that
// anchor, byte-exact.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ContentPart, Message } from '@nanobot/schema';
import { deepFreeze, runs } from '@nanobot-internal/test-support';
import { checkLegality } from '../../check-legality.js';
import { govern } from '../../govern.js';
import { arbitraryBudget, arbitraryHistory } from '../../test-support/arbitrary-history.js';
import { isCompactionPart } from './server-compaction-anchor.js';

const ANCHORS = {
  anthropic: (n: number, words: number): Message => ({ role: 'assistant', content: [{ type: 'compaction', content: `summary ${n} ${'of the earlier turns '.repeat(words)}` } as unknown as ContentPart, { type: 'text', text: `continuing ${n}` }] }),
  responses: (n: number, words: number): Message => ({ role: 'user', content: [{ type: 'compaction', id: `cmp_${n}`, encrypted_content: `gAAAA${'x'.repeat(words * 8)}` } as unknown as ContentPart] }),
};

const withAnchors = (target: keyof typeof ANCHORS) => fc
  .tuple(arbitraryHistory, fc.array(fc.record({ at: fc.nat(), words: fc.integer({ min: 1, max: 60 }) }), { minLength: 1, maxLength: 3 }))
  .map(([history, inserts]) => {
    const out = [...history];
    // Where a provider puts one: a turn of its own, before a user message or at the end (never
    // between a call and its results, which the repairs would move around it).
    inserts.forEach(({ at, words }, n) => {
      const slots = [...out.flatMap((m, i) => (m.role === 'user' ? [i] : [])), out.length];
      out.splice(slots[at % slots.length], 0, ANCHORS[target](n, words));
    });
    return out;
  });

describe.each(['anthropic', 'responses'] as const)('server compaction anchors, target %s', (target) => {
  it('the newest anchor is kept byte-exact whenever anything after it is, and the copy is legal', () => {
    fc.assert(
      fc.property(withAnchors(target), arbitraryBudget, (history, budget) => {
        const input = deepFreeze(history);
        const { messages, report } = govern(input, { ...budget, target, onOverflow: 'send' });
        expect(checkLegality(messages, { target })).toEqual([]);
        const at = input.findLastIndex((m) => Array.isArray(m.content) && m.content.some(isCompactionPart));
        const anchor = JSON.stringify((input[at].content as unknown[]).find(isCompactionPart));
        // Kept messages are the input's objects or equal ones (the memos key by content, not identity).
        const sent = new Set(messages.map((m) => JSON.stringify(m)));
        const parts = new Set(messages.flatMap((m) => (Array.isArray(m.content) ? (m.content as unknown[]) : [])).filter(isCompactionPart).map((p) => JSON.stringify(p)));
        if (input.slice(at + 1).some((m) => sent.has(JSON.stringify(m)))) expect(parts.has(anchor), JSON.stringify(report.cut)).toBe(true);
        // No step rewrites an anchor: every compaction part sent is one of the input's, as it was.
        const stored = new Set(input.flatMap((m) => (Array.isArray(m.content) ? (m.content as unknown[]) : [])).filter(isCompactionPart).map((p) => JSON.stringify(p)));
        for (const p of parts) expect(stored.has(p)).toBe(true);
      }),
      { numRuns: runs(80, 600) },
    );
  });
});
