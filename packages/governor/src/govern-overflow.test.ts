// When the instructions, the tools and the newest user turn alone exceed the budget: each
// onOverflow mode, and the case nothing the governor may cut can help (the instructions alone).
import { describe, expect, it } from 'vitest';
import { NanobotError, type Message } from '@nanobot/schema';
import { BudgetExceededError } from './budget-exceeded-error.js';
import { checkLegality } from './check-legality.js';
import { govern } from './govern.js';
import { promptTokens } from './sizing/estimate.js';
import { MemoryArtifactStore } from './offload/memory-artifact-store.js';
import { shrinkToFit } from './steps/size/shrink-to-fit.js';
import { deepFreeze } from '@nanobot-internal/test-support';

const TOOLS = [{ type: 'function' as const, function: { name: 'exec', description: 'Run a command.', parameters: { type: 'object', properties: {} } } }];
const pasted = `Ran \`find .\`\n${Array.from({ length: 3000 }, (_, i) => `./src/module-${i}/index.ts`).join('\n')}\nWhich of these are tests?`;
const history = deepFreeze<Message[]>([
  { role: 'system', content: 'You are nanobot.' },
  { role: 'user', content: 'Hello' },
  { role: 'assistant', content: 'Hi! What can I do?' },
  { role: 'user', content: pasted },
]);
const BUDGET = 2_000;
const options = { contextBlockLimit: BUDGET, contextWindowTokens: 1_000_000, tools: TOOLS };

describe('the newest user turn alone exceeds the budget', () => {
  it('default (shrink) without a store: cuts the middle of the newest oversized content, keeps head and tail, reports it', () => {
    const { messages, report } = govern(history, options);
    expect(report.fits).toBe(true);
    expect(report.overflow).toBeUndefined();
    expect(checkLegality(messages, { target: 'any', budget: BUDGET, tools: TOOLS })).toEqual([]);
    expect(report.tokensAfter).toBeLessThanOrEqual(BUDGET);
    const last = messages.at(-1)!;
    const text = last.content as string;
    expect(text.startsWith('Ran `find .`\n./src/module-0/index.ts')).toBe(true);
    expect(text.endsWith('Which of these are tests?')).toBe(true);
    expect(text).toMatch(/\[… \d+ of \d+ characters cut to fit the context window\]/);
    const step = report.steps.find((s) => s.step === 'shrinkToFit')!;
    expect(step.changed).toBe(true);
    expect(step.added).toEqual([expect.objectContaining({ role: 'user', reason: 'truncated', originalChars: pasted.length })]);
    expect(step.added[0].location).toBeUndefined();
    // The system prompt is untouched and the earlier turn was snipped first.
    expect(messages[0]).toBe(history[0]);
    expect(messages.some((m) => m.content === 'Hello')).toBe(false);
  });

  it('shrink with an ArtifactStore: the full text is saved and the marker says where', () => {
    const store = new MemoryArtifactStore();
    const { messages, report } = govern(history, { ...options, artifactStore: store, sessionKey: 's1' });
    expect(report.fits).toBe(true);
    const added = report.steps.find((s) => s.step === 'shrinkToFit')!.added[0];
    expect(added.reason).toBe('offloaded');
    expect(store.read(added.location!)).toBe(pasted);
    expect(messages.at(-1)!.content).toContain(`the full text is saved at ${added.location}]`);
    // Governing again saves to the same place and yields the same copy.
    const again = govern(history, { ...options, artifactStore: store, sessionKey: 's1' });
    expect(again.messages).toEqual(messages);
  });

  it('a store that throws: the text is cut instead and the report says so', () => {
    const broken = { persist: () => { throw new Error('disk full'); }, read: () => undefined };
    const { report } = govern(history, { ...options, artifactStore: broken });
    const step = report.steps.find((s) => s.step === 'shrinkToFit')!;
    expect(step.added[0].reason).toBe('truncated');
    expect(step.notes).toEqual([expect.stringContaining('disk full')]);
    expect(report.fits).toBe(true);
  });

  it("'throw' throws a typed BudgetExceededError with a stable code", () => {
    let error: unknown;
    try {
      govern(history, { ...options, onOverflow: 'throw' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(BudgetExceededError);
    expect(error).toBeInstanceOf(NanobotError);
    const e = error as BudgetExceededError;
    expect(e.code).toBe('BUDGET_EXCEEDED');
    expect(e.overflow).toMatchObject({ reason: 'newest-turn', budget: BUDGET });
    expect(e.overflow.tokens).toBeGreaterThan(BUDGET);
    expect(e.message).toMatch(/newest user turn/);
  });

  it("'send' returns the over-budget copy with fits: false and the reason", () => {
    const { messages, report } = govern(history, { ...options, onOverflow: 'send' });
    expect(report.fits).toBe(false);
    expect(report.overflow).toMatchObject({ reason: 'newest-turn', budget: BUDGET });
    expect(report.overflow!.tokens).toBe(report.tokensAfter);
    expect(messages.at(-1)).toBe(history.at(-1));
    expect(promptTokens(messages, { tools: TOOLS })).toBeGreaterThan(BUDGET);
    expect(report.steps.some((s) => s.step === 'shrinkToFit')).toBe(false);
  });
});

describe('the instructions alone exceed the budget', () => {
  const huge = deepFreeze<Message[]>([{ role: 'system', content: 'rule. '.repeat(3000) }, { role: 'user', content: 'hi' }]);

  it('shrink cannot help (instructions are never cut): fits false, reason instructions', () => {
    const { messages, report } = govern(huge, options);
    expect(report.fits).toBe(false);
    expect(report.overflow!.reason).toBe('instructions');
    expect(report.overflow!.instructionTokens).toBeGreaterThanOrEqual(BUDGET);
    expect(messages).toEqual(huge);
    messages.forEach((m, i) => expect(m).toBe(huge[i]));
  });

  it("'throw' throws", () => {
    expect(() => govern(huge, { ...options, onOverflow: 'throw' })).toThrow(BudgetExceededError);
  });

  it('without a budget there is no fits at all', () => {
    expect(govern(huge).report.fits).toBeUndefined();
  });
});

describe('shrinkToFit', () => {
  it('picks the newest message that alone covers the overflow and leaves others alone', () => {
    const list = deepFreeze<Message[]>([
      { role: 'user', content: 'older '.repeat(800) },
      { role: 'assistant', content: 'ok' },
      { role: 'user', content: 'newer '.repeat(800) },
    ]);
    const budget = promptTokens(list, {}) - 200;
    const r = shrinkToFit(list, { budget });
    expect(r.tokens).toBeLessThanOrEqual(budget);
    expect(r.shrunk.map((s) => s.index)).toEqual([2]);
    expect(r.messages[0]).toBe(list[0]);
    expect(r.messages[1]).toBe(list[1]);
  });

  it('returns the same list when it fits or when there is no budget', () => {
    const list = deepFreeze<Message[]>([{ role: 'user', content: 'hi' }]);
    expect(shrinkToFit(list, { budget: 100 }).messages).toBe(list);
    expect(shrinkToFit(list, { budget: 0 }).messages).toBe(list);
  });
});
