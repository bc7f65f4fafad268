import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Message } from '@nanobot/schema';
import { checkLegality } from './check-legality.js';
import { enforceRoleAlternation } from './steps/target/enforce-role-alternation.js';
import { govern } from './govern.js';
import { isInstructionRole, type GovernTarget } from './steps/target/govern-target.js';
import { anthropicTurnViolations } from './test-support/anthropic-turns.js';
import { inputBudget } from './sizing/input-budget.js';
import { promptTokens } from './sizing/estimate.js';
import { estimatorFor } from './sizing/model-defaults.js';
import { MemoryArtifactStore } from './offload/memory-artifact-store.js';
import { arbitraryBudget, arbitraryHistory } from './test-support/arbitrary-history.js';
import { deepFreeze, runs } from '@nanobot-internal/test-support';

const TOOLS = [{ type: 'function' as const, function: { name: 'exec', description: 'Run a command.', parameters: { type: 'object', properties: { command: { type: 'string' } } } } }];

describe('govern on random corrupted histories', () => {
  it('never mutates its input and always yields a legal request for its target', () => {
    fc.assert(
      fc.property(arbitraryHistory, arbitraryBudget, fc.boolean(), fc.constantFrom<GovernTarget>('any', 'openai', 'anthropic'), (history, budgetOptions, withStore, target) => {
        const input = deepFreeze(history);
        const snapshot = JSON.stringify(input);
        const ids = new Set<string>();
        const options = { ...budgetOptions, target, tools: TOOLS, compactedToolCallIds: ids, artifactStore: withStore ? new MemoryArtifactStore() : null, sessionKey: 's' };
        const { messages, report } = govern(input, options);
        expect(JSON.stringify(input)).toBe(snapshot);

        // Every rule the target API states: calls answered right after their turn, no orphan or
        // duplicate result, unique ids, content present and not blank, roles in order.
        expect(checkLegality(messages, { target })).toEqual([]);
        if (target !== 'openai') {
          // A history with no conversation message at all has nothing to ask (documented).
          const conversation = messages.some((m) => !isInstructionRole(m.role));
          expect(anthropicTurnViolations(messages).filter((v) => conversation || v !== 'no user or assistant turn')).toEqual([]);
          // Nothing is left for a provider to fix.
          expect(enforceRoleAlternation(messages)).toBe(messages);
        }

        // It fits, or the report says why: only instructions (and tools) too large to fit.
        const budget = inputBudget(options);
        if (budget > 0) {
          expect(report.fits).toBeTypeOf('boolean');
          if (report.fits) expect(promptTokens(messages, { tools: TOOLS, estimator: estimatorFor({}) })).toBeLessThanOrEqual(budget);
          else if (report.overflow!.reason === 'newest-results') {
            // Within the budget only because the pending results became a plain note.
            expect(report.overflow!.tokens).toBeLessThanOrEqual(budget);
            expect(messages.some((m) => m.role === 'tool' && typeof m.content === 'string' && m.content.includes('is not shown: this request has no room for it'))).toBe(true);
          } else if (report.overflow!.reason === 'newest-turn') {
            // Shortening gave up only after it went as far as it could: what is over budget is
            // the turn's own skeleton (roles, calls, cut markers), not text it could still cut.
            expect(report.overflow!.tokens).toBeGreaterThan(budget);
            for (const m of messages) {
              if (isInstructionRole(m.role) || typeof m.content !== 'string') continue;
              expect(m.content.length <= 64 || m.content.includes('cut to fit the context window')).toBe(true);
            }
          } else expect(report.overflow!.instructionTokens).toBeGreaterThanOrEqual(budget);
        } else {
          expect(report.fits).toBeUndefined();
        }

        // Governing again with the run's compaction set gives the same copy (stable prefix).
        const again = govern(input, options).messages;
        expect(again).toEqual(messages);
      }),
      { numRuns: runs(500, 5000) },
    );
  });

  it('fits long tool loops into tight budgets, keeping the user turn first', () => {
    const loop = fc.record({
      earlier: fc.nat(6),
      calls: fc.array(fc.tuple(fc.constantFrom('exec', 'read_file', 'write_file', 'mcp_git_status'), fc.integer({ min: 5, max: 700 })), { minLength: 3, maxLength: 60 }),
      share: fc.double({ min: 0, max: 1, noNaN: true }),
      inflight: fc.boolean(),
    });
    fc.assert(
      fc.property(loop, ({ earlier, calls, share, inflight }) => {
        const history: Message[] = [{ role: 'system', content: 'You are nanobot.' }];
        for (let i = 0; i < earlier; i++) history.push({ role: 'user', content: `old question ${i}` }, { role: 'assistant', content: `old answer ${i}` });
        const start = history.length;
        history.push({ role: 'user', content: 'run the long task' });
        calls.forEach(([name, words], i) => {
          history.push({ role: 'assistant', content: '', tool_calls: [{ id: `t${i}`, type: 'function', function: { name, arguments: '{}' } }] });
          history.push({ role: 'tool', tool_call_id: `t${i}`, name, content: `out${i} `.repeat(words) });
        });
        deepFreeze(history);
        // The budget holds the instructions, the user message and the newest call with a short
        // preview of its result (issue 29: that step is never cut while a preview fits).
        const last = history[history.length - 1];
        const preview = { ...last, content: `${String(last.content).slice(0, 200)} ${'note '.repeat(90)}` };
        const floor = promptTokens([history[0], history[start], history[history.length - 2], preview], { tools: TOOLS, estimator: estimatorFor({}) });
        const total = promptTokens(history, { tools: TOOLS, estimator: estimatorFor({}) });
        const budget = Math.floor(floor + share * (total - floor));
        const options = { contextBlockLimit: budget, contextWindowTokens: 1_000_000, tools: TOOLS, inflightStartIndex: inflight ? start : history.length, compactedToolCallIds: new Set<string>() };
        const { messages } = govern(history, options);
        expect(checkLegality(messages, { budget, tools: TOOLS })).toEqual([]);
        expect(messages[1].role).toBe('user');
        expect(checkLegality(enforceRoleAlternation(messages), { request: true })).toEqual([]);
      }),
      { numRuns: 400 },
    );
  });

  it('keeps the input objects for messages it does not change', () => {
    fc.assert(
      fc.property(arbitraryHistory, (history) => {
        const input = deepFreeze(history);
        const { messages } = govern(input);
        const inputs = new Set<Message>(input);
        for (const m of messages) {
          if (inputs.has(m)) continue;
          // A new object only where governance changed something about it.
          expect(input.some((x) => JSON.stringify(x) === JSON.stringify(m))).toBe(false);
        }
      }),
      { numRuns: 1000 },
    );
  });
});
