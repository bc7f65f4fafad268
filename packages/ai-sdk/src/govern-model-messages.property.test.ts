import { deepFreeze } from '@nanobot-internal/test-support';
import type { Message } from '@nanobot/schema';
import { checkLegality } from '@nanobot/governor';
import { generateText, type ModelMessage } from 'ai';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { governModelMessages } from './govern-model-messages.js';
import type { AiMessage } from './internal/ai-message.js';
import { fromGovernorView } from './internal/from-governor-messages.js';
import { DialectMemo } from '@nanobot/governor/dialect';
import { convertToGovernorView, recordPrompt, toGovernorView } from './internal/to-governor-messages.js';
import { mockModel, noDownload } from './test-support/mock-model.js';
import { damagedHistory, validHistory } from './test-support/arbitrary-model-messages.js';

const asAi = (m: readonly ModelMessage[]) => m as readonly unknown[] as readonly AiMessage[];

describe('AI SDK ModelMessage round trips', () => {
  it('a valid history comes back as the same array, untouched', () => {
    fc.assert(
      fc.property(validHistory, (history) => {
        deepFreeze(history);
        const { messages, report } = governModelMessages(history);
        expect(messages).toBe(history);
        expect(report.steps.every((s) => !s.changed)).toBe(true);
      }),
      { numRuns: 200 },
    );
  });

  it('there and back without the governor is the identity, even when every governor message is a copy', () => {
    fc.assert(
      fc.property(fc.oneof(validHistory, damagedHistory), (history) => {
        deepFreeze(history);
        const view = toGovernorView(history, 'test', new DialectMemo());
        const same = fromGovernorView(asAi(history), view, [...view.messages], 'model-messages', new DialectMemo());
        expect(same.length).toBe(history.length);
        same.forEach((m, i) => expect(m).toBe(history[i]));
        // Every message rebuilt (as if the governor had copied it): equal content, same parts.
        const rebuilt = fromGovernorView(asAi(history), view, view.messages.map((m) => ({ ...m })), 'model-messages', new DialectMemo());
        expect(rebuilt).toEqual(history);
      }),
      { numRuns: 200 },
    );
  });

  it('a damaged history comes out legal, keeps every untouched message by identity, and the real generateText accepts it', async () => {
    await fc.assert(
      fc.asyncProperty(damagedHistory, async (history) => {
        deepFreeze(history);
        const { messages, report } = governModelMessages(history);
        const inputs = new Set<ModelMessage>(history);
        // What the governor did not touch is the input object; what it rebuilt keeps its parts.
        const parts = new Set<unknown>(history.flatMap((m): unknown[] => (Array.isArray(m.content) ? m.content : [])));
        for (const m of messages) {
          if (inputs.has(m) || !Array.isArray(m.content)) continue;
          for (const p of m.content) {
            if (p.type === 'tool-result' && p.output.type === 'error-text' && p.output.value.startsWith('[Tool result unavailable')) continue;
            expect(parts.has(p) || p.type === 'tool-result').toBe(true);
          }
        }
        // Legal for both APIs: calls answered right after their turn, alternation, user last.
        expect(checkLegality(toGovernorView(messages, 'test', new DialectMemo()).messages, { target: 'any' })).toEqual([]);
        expect(report.messagesBefore).toBeGreaterThanOrEqual(0);
        const lm = mockModel();
        await generateText({ model: lm, messages, experimental_download: noDownload, allowSystemInMessages: true });
        expect(lm.doGenerateCalls).toHaveLength(1);
      }),
      { numRuns: 60 },
    );
  });
});

describe('the write-back lookups kept per view', () => {
  it('a warm memo (lookups kept from an earlier, equal prompt) writes back what a fresh one does, and answers', () => {
    let answered = 0;
    fc.assert(
      fc.property(validHistory, (history) => {
        const memo = new DialectMemo();
        const rebuild = () => asAi(history).map((m) => (Array.isArray(m.content) ? { ...m, content: m.content.map((p) => ({ ...p })) } : { ...m })) as AiMessage[];
        const first = rebuild();
        const firstView = toGovernorView(first, 'test', memo);
        // Every other message rewritten (a copy), in reverse order: a kept message standing
        // before the one last found is looked up.
        const rewriteSome = (messages: readonly Message[]) => messages.map((m, i) => (i % 2 === 0 ? { ...m } : m)).reverse();
        fromGovernorView(first, firstView, rewriteSome(firstView.messages), 'model-messages', memo);
        // The next call: the prompt rebuilt again, its view made from the first one's.
        const second = rebuild();
        const view = toGovernorView(second, 'test', memo, recordPrompt(first, firstView, undefined, 0));
        const governed = rewriteSome(view.messages);
        const warm = fromGovernorView(second, view, governed, 'model-messages', memo);
        const cold = fromGovernorView(second, view, governed, 'model-messages', new DialectMemo());
        expect(warm).toEqual(cold);
        warm.forEach((m, i) => expect(m === second[i]).toBe(cold[i] === second[i]));
        if (memo.weak<object, unknown>('ai-sdk:positions').has(view.messages) && view.messages === firstView.messages) answered++;
      }),
      { numRuns: 200 },
    );
    // Not vacuous: the second call found the lookups the first one kept for the same view arrays.
    expect(answered).toBeGreaterThan(0);
  });

  it('a write-back plan kept for a view writes a rebuilt prompt back as a fresh write-back does', () => {
    let replayed = 0;
    fc.assert(
      fc.property(validHistory, fc.nat(), (history, pick) => {
        const memo = new DialectMemo();
        const rebuild = () => asAi(history).map((m) => (Array.isArray(m.content) ? { ...m, content: m.content.map((p) => ({ ...p })) } : { ...m })) as AiMessage[];
        const first = rebuild();
        const view = toGovernorView(first, 'test', memo);
        // One governor message rewritten, the rest kept: what the governor hands back.
        const governed = view.messages.map((m, i) => (view.messages.length > 0 && i === pick % view.messages.length ? { ...m } : m));
        fromGovernorView(first, view, governed, 'model-messages', memo);
        for (const source of [rebuild(), rebuild()]) {
          const warm = fromGovernorView(source, { ...view, reused: true }, governed.slice(), 'model-messages', memo);
          const cold = fromGovernorView(source, { ...view, reused: true }, governed.slice(), 'model-messages', new DialectMemo());
          expect(warm).toEqual(cold);
          warm.forEach((m, i) => expect(m === source[i]).toBe(cold[i] === source[i]));
        }
        if (memo.weak<object, unknown>('ai-sdk:plan:model-messages').has(view.messages)) replayed++;
      }),
      { numRuns: 200 },
    );
    expect(replayed).toBeGreaterThan(0);
  });

  it('a grown prompt written back from the plan of the prompt it grew from is written as a fresh write-back does', () => {
    let resumable = 0;
    // Long enough for the plan's checkpoints (every 32 governor messages): several histories in a row.
    const longHistory = fc.array(validHistory, { minLength: 3, maxLength: 6 }).map((hs) => hs.flat().filter((m, i) => i === 0 || m.role !== 'system'));
    fc.assert(
      fc.property(longHistory, fc.nat(), fc.nat(), fc.nat(), fc.nat(), fc.boolean(), fc.option(fc.nat(), { nil: undefined }), (history, split, keep, from, every, rebuiltPrompt, again) => {
        const memo = new DialectMemo();
        const copy = (m: ModelMessage) => (Array.isArray(m.content) ? { ...m, content: m.content.map((p) => ({ ...p })) } : { ...m }) as AiMessage;
        const cut = 1 + (split % history.length);
        const first = asAi(history.slice(0, cut)).map((m) => copy(m as unknown as ModelMessage));
        const firstView = toGovernorView(first, 'test', memo);
        // What the governor hands back: some messages copies (rewrites), some left out (cuts).
        const step = 2 + (every % 5);
        const govern = (messages: readonly Message[], seed: number) =>
          messages.flatMap((m, i) => ((i + seed) % (step * 3) === 0 ? [] : (i + seed) % step === 0 ? [{ ...m }] : [m]));
        const firstGoverned = govern(firstView.messages, every);
        fromGovernorView(first, firstView, firstGoverned, 'model-messages', memo);
        // The next step: the same list with more messages (or all of it rebuilt, as the SDK does).
        const grown = asAi(history.slice(cut)).map((m) => copy(m as unknown as ModelMessage));
        const second = rebuiltPrompt ? [...first.map((m) => copy(m as unknown as ModelMessage)), ...grown] : [...first, ...grown];
        // Sometimes an object of the list again after it (its view messages then stand twice).
        if (again !== undefined) second.push(second[again % second.length]);
        const view = rebuiltPrompt
          ? convertToGovernorView(second, 'test', memo, recordPrompt(first, firstView, undefined, 0)).view
          : toGovernorView(second, 'test', memo);
        // It starts as the last output did, up to a point; then anything from the view's later messages.
        const same = keep % (firstGoverned.length + 1);
        const governed = [...firstGoverned.slice(0, same), ...govern(view.messages.slice(from % (view.messages.length + 1)), every + 1)];
        const warm = fromGovernorView(second, view, governed, 'model-messages', memo);
        const cold = fromGovernorView(second, view, governed, 'model-messages', new DialectMemo());
        expect(warm).toEqual(cold);
        warm.forEach((m, i) => expect(m === second[i]).toBe(cold[i] === second[i]));
        // And the plan it left serves the step after it alike.
        const third = [...second, ...first.slice(0, 3).map((m) => copy(m as unknown as ModelMessage))];
        const thirdView = toGovernorView(third, 'test', memo);
        const thirdGoverned = [...governed, ...govern(thirdView.messages.slice(view.messages.length), every)];
        expect(fromGovernorView(third, thirdView, thirdGoverned, 'model-messages', memo)).toEqual(fromGovernorView(third, thirdView, thirdGoverned, 'model-messages', new DialectMemo()));
        if (view.grownFrom === firstView.messages && view.grownFresh === true && same >= 32) resumable++;
      }),
      { numRuns: 400 },
    );
    // Not vacuous: grown views whose output shares a checkpointed stretch with the last one.
    expect(resumable).toBeGreaterThan(5);
  });

  it('a grown prompt whose output differs early from the last one is not written from the last plan there', () => {
    const memo = new DialectMemo();
    const history: AiMessage[] = Array.from({ length: 80 }, (_, i) => ({ role: i % 2 === 0 ? 'user' : 'assistant', content: `message ${i}` }) as AiMessage);
    const first = history.slice(0, 76);
    const firstView = toGovernorView(first, 'test', memo);
    // Every fifth message rewritten by the governor (a copy): checkpoints fall after the others.
    const firstGoverned = firstView.messages.map((m, i) => (i % 5 === 0 ? { ...m, content: `${String(m.content)} (shortened)` } : m));
    fromGovernorView(first, firstView, firstGoverned, 'model-messages', memo);
    const second = history.slice(0, 78);
    const view = toGovernorView(second, 'test', memo);
    expect(view.grownFrom).toBe(firstView.messages);
    // This step's output rewrites message 5 otherwise: everything after it is written afresh.
    const governed = [...firstGoverned.slice(0, 5), { ...view.messages[5], content: 'rewritten otherwise' }, ...firstGoverned.slice(6), ...view.messages.slice(76)];
    const warm = fromGovernorView(second, view, governed, 'model-messages', memo);
    expect(warm).toEqual(fromGovernorView(second, view, governed, 'model-messages', new DialectMemo()));
    expect(warm[5]).toEqual({ role: 'assistant', content: 'rewritten otherwise' });
  });

  it('a prompt rebuilt with a field changed is converted from its own content where it differs', () => {
    let matched = 0;
    fc.assert(
      fc.property(validHistory, fc.nat(), (history, pick) => {
        const memo = new DialectMemo();
        const rebuild = () => asAi(history).map((m) => (Array.isArray(m.content) ? { ...m, content: m.content.map((p) => ({ ...p })) } : { ...m })) as AiMessage[];
        const first = rebuild();
        const record = recordPrompt(first, toGovernorView(first, 'test', memo), undefined, 0);
        const second = rebuild();
        if (second.length > 0) {
          const at = pick % second.length;
          const m = second[at];
          second[at] = Array.isArray(m.content) && m.content.length > 0
            ? { ...m, content: m.content.map((p, i) => (i === 0 ? { ...p, providerOptions: { test: { changed: true } } } : p)) }
            : { ...m, providerOptions: { test: { changed: true } } };
        }
        const { view, shared } = convertToGovernorView(second, 'test', memo, record);
        const fresh = toGovernorView(second, 'test', new DialectMemo());
        expect(view.messages).toEqual(fresh.messages);
        expect(fromGovernorView(second, view, view.messages.map((g) => ({ ...g })), 'model-messages', memo)).toEqual(fromGovernorView(second, fresh, fresh.messages.map((g) => ({ ...g })), 'model-messages', new DialectMemo()));
        if (shared !== null && shared > 0) matched++;
      }),
      { numRuns: 200 },
    );
    expect(matched).toBeGreaterThan(0);
  });
});
