// The memos of the per-target steps (separateToolResultsFromUser, placeholderThoughtSignatures)
// against the plain steps they resume (fast-check), over the lists a runner governs one after
// the other: grown and cut histories, and histories that go on differently after a shared
// start; and a Governor with memos against one without, call by call, for every target.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Message } from '@nanobot/schema';
import { deepFreeze } from '@nanobot-internal/test-support';
import { governWith } from '../govern.js';
import type { GovernOptions, GovernResult } from '../govern-options.js';
import { placeholderThoughtSignaturesStep } from '../steps/target/placeholder-thought-signatures.js';
import { separateToolResultsFromUserStep } from '../steps/target/separate-tool-results-from-user.js';
import { userFirstStep } from '../steps/target/user-first.js';
import { createGovernor } from '../governor.js';
import { GOVERN_TARGETS, type GovernTarget } from '../steps/target/govern-target.js';
import { resolveCall } from '../step-context.js';
import { arbitraryBudget, arbitraryHistory } from '../test-support/arbitrary-history.js';
import { GovernorMemos } from './memo-store.js';

const call = (id: string, signature?: string) => ({ id, type: 'function' as const, function: { name: 'exec', arguments: '{}' }, ...(signature === undefined ? {} : { extra_content: { google: { thought_signature: signature } } }) });

/** Turns with the shapes these steps rewrite: a user right after results, signed and unsigned steps. */
const shapedHistory = fc
  .array(fc.record({ calls: fc.nat(2), signed: fc.boolean(), user: fc.boolean(), answer: fc.boolean() }), { minLength: 1, maxLength: 14 })
  .map((turns): Message[] => {
    const out: Message[] = [{ role: 'system', content: 's' }, { role: 'user', content: 'go' }];
    let n = 0;
    for (const t of turns) {
      if (t.calls > 0) {
        const ids = Array.from({ length: t.calls }, () => `c${n++}`);
        out.push({ role: 'assistant', content: null, tool_calls: ids.map((id, i) => call(id, t.signed && i === 0 ? `sig-${id}` : undefined)) } as Message);
        for (const id of ids) out.push({ role: 'tool', tool_call_id: id, name: 'exec', content: `r ${id}` });
      } else if (t.answer) out.push({ role: 'assistant', content: `answer ${n++}` });
      if (t.user) out.push({ role: 'user', content: `next ${n++}` });
    }
    return deepFreeze(out);
  });

/** The lists governed one after the other: prefixes of `history`, or of `history`'s start followed by `other`. */
const requests = fc.array(fc.tuple(fc.nat(), fc.nat(), fc.boolean()), { minLength: 1, maxLength: 8 });
function listsOf(history: Message[], other: Message[], steps: [number, number, boolean][]): Message[][] {
  return steps.map(([end, shared, diverge]) => {
    const source = diverge ? [...history.slice(0, 1 + (shared % history.length)), ...other.slice(2)] : history;
    return source.slice(0, 1 + (end % source.length));
  });
}

describe('per-target step memos', () => {
  it('the separation resumed from the last call equals the plain step', () => {
    fc.assert(
      fc.property(shapedHistory, shapedHistory, requests, (history, other, steps) => {
        const memos = new GovernorMemos();
        for (const list of listsOf(history, other, steps)) {
          const ctx = resolveCall(list, { target: 'mistral' }, memos.derive, null).ctx;
          const got = memos.separations.run(list);
          const want = separateToolResultsFromUserStep.run(list, ctx);
          expect(got.messages === list).toBe(want.messages === list);
          expect(got.messages).toEqual(want.messages);
          expect(got.added).toEqual(want.added ?? []);
          got.messages.forEach((m, i) => expect(m).toBe(want.messages[i]));
        }
      }),
      { numRuns: 300 },
    );
  });

  it('the user-first opener resumed from the last call equals the plain step', () => {
    // Histories whose first turn is an assistant's (a greeting, or the opening user turn gone)
    // or a user's, grown, cut and gone on differently.
    const opened = fc.tuple(shapedHistory, fc.constantFrom('greeting', 'no-user', 'as-is')).map(([h, how]) =>
      deepFreeze(how === 'greeting' ? [h[0], { role: 'assistant', content: 'hi' } as Message, ...h.slice(1)] : how === 'no-user' ? [h[0], ...h.slice(2)] : h));
    fc.assert(
      fc.property(opened, opened, requests, (history, other, steps) => {
        const memos = new GovernorMemos();
        for (const list of listsOf(history, other, steps)) {
          const ctx = resolveCall(list, { target: 'openai' }, memos.derive, null).ctx;
          const got = memos.userFirst.run(list);
          const want = userFirstStep.run(list, ctx);
          expect(got.messages === list).toBe(want.messages === list);
          expect(got.messages).toEqual(want.messages);
          expect(got.added).toEqual(want.added ?? []);
          got.messages.forEach((m, i) => expect(m).toBe(want.messages[i]));
        }
      }),
      { numRuns: 300 },
    );
  });

  it('a grown history opened by an assistant turn reuses the user-first list, and results handed out stay as they were', () => {
    const history: Message[] = deepFreeze([
      { role: 'system', content: 's' },
      { role: 'assistant', content: 'hi, how can I help?' },
      { role: 'user', content: 'a' },
      { role: 'assistant', content: null, tool_calls: [call('c1')] } as Message,
      { role: 'tool', tool_call_id: 'c1', name: 'exec', content: 'r' },
      { role: 'user', content: 'b' },
      { role: 'assistant', content: 'c' },
      { role: 'user', content: 'd' },
    ]);
    const memos = new GovernorMemos();
    const ends = [3, 5, 6, 8, 8, 4, 8];
    let handed: Message[] | null = null;
    for (const end of ends) {
      const got = memos.userFirst.run(history.slice(0, end)).messages;
      if (handed !== null) expect(got).toBe(handed);
      handed = got;
    }
    for (const target of ['openai', 'responses', 'deepseek', 'openrouter'] as const) {
      const withMemos = createGovernor({ target });
      const plain = createGovernor({ target, memos: false });
      const kept: [Message[], string][] = [];
      for (const end of ends) {
        const a = withMemos.govern(history.slice(0, end)).messages;
        expect(JSON.stringify(a)).toBe(JSON.stringify(plain.govern(history.slice(0, end)).messages));
        expect(a[1]).toEqual(expect.objectContaining({ role: 'user' }));
        kept.push([a, JSON.stringify(a)]);
      }
      for (const [list, json] of kept) expect(JSON.stringify(list)).toBe(json);
    }
  });

  it('the placeholder rewrite resumed from the last call equals the plain step', () => {
    fc.assert(
      fc.property(shapedHistory, shapedHistory, requests, (history, other, steps) => {
        const memos = new GovernorMemos();
        for (const list of listsOf(history, other, steps)) {
          const ctx = resolveCall(list, { target: 'gemini' }, memos.derive, null).ctx;
          const got = memos.placeholders.run(list, 'skip_thought_signature_validator');
          const want = placeholderThoughtSignaturesStep.run(list, ctx);
          expect(got.messages === list).toBe(want.messages === list);
          expect(got.messages).toEqual(want.messages);
          expect(got.removed).toEqual(want.removed ?? []);
          expect(got.added).toEqual(want.added ?? []);
          got.messages.forEach((m, i) => expect(m).toBe(want.messages[i]));
        }
      }),
      { numRuns: 300 },
    );
  });

  it('the placeholder entries, read after a later call changed the memo\'s list, name the messages of their own call', () => {
    const step = (id: string, content: string | null = null) => ({ role: 'assistant', content, tool_calls: [call(id)] }) as Message;
    const list = deepFreeze<Message[]>([{ role: 'system', content: 's' }, { role: 'user', content: 'go' }, step('c1'), { role: 'tool', tool_call_id: 'c1', name: 'exec', content: 'r' }, step('c2')]);
    // The same start, then another step where the first one stood: the memo's list changes in place.
    const next = deepFreeze<Message[]>([...list.slice(0, 2), step('c9', 'another step'), { role: 'tool', tool_call_id: 'c9', name: 'exec', content: 'r' }]);
    const memos = new GovernorMemos();
    const first = memos.placeholders.run(list, 'skip_thought_signature_validator');
    expect(memos.placeholders.run(next, 'skip_thought_signature_validator').messages).toBe(first.messages);
    const want = placeholderThoughtSignaturesStep.run(list, resolveCall(list, { target: 'gemini' }, memos.derive, null).ctx);
    expect(first.removed).toEqual(want.removed);
    expect(first.added).toEqual(want.added);
  });

  it('a Governor with memos returns what one without returns, call by call, for every target', () => {
    fc.assert(
      fc.property(fc.oneof(shapedHistory, arbitraryHistory.map((h) => deepFreeze(h))), shapedHistory, requests, arbitraryBudget, fc.constantFrom<GovernTarget>(...GOVERN_TARGETS), (history, other, steps, budget, target) => {
        if (history.length === 0) return;
        const memos = new GovernorMemos();
        const given: GovernOptions = { ...budget, target };
        let planA: GovernOptions['cutPlan'] = null;
        let planB: GovernOptions['cutPlan'] = null;
        for (const list of listsOf(history, other, steps)) {
          const a: GovernResult = governWith(memos, list, { ...given, cutPlan: planA });
          const b: GovernResult = governWith(null, list, { ...given, cutPlan: planB });
          expect(JSON.stringify(a.messages)).toBe(JSON.stringify(b.messages));
          expect(JSON.stringify(a.report)).toBe(JSON.stringify(b.report));
          expect(a.messages === list).toBe(b.messages === list);
          planA = a.cutPlan;
          planB = b.cutPlan;
        }
      }),
      { numRuns: 300 },
    );
  });

  it('a report read only after later calls lists what it listed when made (its entries are built when read)', () => {
    fc.assert(
      fc.property(shapedHistory, shapedHistory, requests, fc.constantFrom<GovernTarget>(...GOVERN_TARGETS), (history, other, steps, target) => {
        const memos = new GovernorMemos();
        // Grown, cut back and gone on differently: later calls cut the memos' entries back and rewrite them.
        const kept = listsOf(history, other, [...steps, ...steps.map(([end, shared]): [number, number, boolean] => [end + 3, shared, true])])
          .map((list) => [governWith(memos, list, { target }).report, governWith(null, list, { target }).report]);
        for (const [a, b] of kept) expect(JSON.stringify(a)).toBe(JSON.stringify(b));
      }),
      { numRuns: 300 },
    );
  });
});
