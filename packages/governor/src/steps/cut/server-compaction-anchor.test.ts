import { describe, expect, it } from 'vitest';
import type { ContentPart, Message } from '@nanobot/schema';
import { deepFreeze } from '@nanobot-internal/test-support';
import { checkLegality } from '../../check-legality.js';
import { govern } from '../../govern.js';
import { createGovernor } from '../../governor.js';
import { promptTokens } from '../../sizing/estimate.js';
import { snipHistory } from './snip-history.js';
import { keepServerAnchor, newestServerAnchor } from './server-compaction-anchor.js';

const WORDS = 'we agreed to keep the rollout gradual and watch the error budget closely while the team reviews every dashboard'.split(' ');
const filler = (seed: number, n: number) => Array.from({ length: n }, (_, i) => WORDS[(seed * 7 + i * 3) % WORDS.length]).join(' ');
const call = (id: string) => ({ id, type: 'function' as const, function: { name: 'read_file', arguments: '{"path":"notes.md"}' } });

/** Anthropic's threshold compaction: the block first in the assistant turn that answered. */
const block = (n: number): ContentPart => ({ type: 'compaction', content: `Summary ${n}: ${filler(n, 40)}` }) as unknown as ContentPart;

function turns(from: number, count: number): Message[] {
  const out: Message[] = [];
  for (let t = from; t < from + count; t++) {
    out.push({ role: 'user', content: `Turn ${t}: ${filler(t, 40)}` });
    if (t % 3 === 0) out.push({ role: 'assistant', content: null, tool_calls: [call(`c${t}`)] }, { role: 'tool', tool_call_id: `c${t}`, name: 'read_file', content: filler(t + 1, 80) });
    out.push({ role: 'assistant', content: `Answer ${t}: ${filler(t + 2, 60)}` });
  }
  return out;
}

/** A long history, a compaction (the anchor), then `after` more turns and the newest user message. */
function compacted(after: number, anchor: Message = { role: 'assistant', content: [block(1), { type: 'text', text: 'Continuing from the summary.' }] }): { messages: Message[]; anchor: Message } {
  const messages = deepFreeze([{ role: 'system', content: 'You are nanobot.' }, ...turns(0, 20), { role: 'user', content: 'Go on.' }, anchor, ...turns(100, after), { role: 'user', content: 'What next?' }] as Message[]);
  return { messages, anchor: messages[messages.findIndex((m) => m.content === anchor.content)] };
}

const budgetFor = (messages: readonly Message[], share: number) => Math.floor(promptTokens(messages, {}) * share);

describe('server compaction anchors under snipping', () => {
  it('a cut never keeps what precedes the newest anchor: it starts at the anchor (the server ignores the rest)', () => {
    const { messages, anchor } = compacted(2);
    // The anchor and what follows fit easily; the whole history does not.
    const snipped = snipHistory(messages, { budget: budgetFor(messages, 0.5) });
    expect(snipped.serverAnchor).toBe('cut-at-anchor');
    expect(snipped.messages[1]).toBe(anchor);
    expect(snipped.messages.slice(2)).toEqual(messages.slice(messages.indexOf(anchor) + 1));
  });

  it('a cut after the anchor keeps it (byte-exact, with its tool results) in front of the kept history', () => {
    const anchorTurn: Message = { role: 'assistant', content: [block(2)], tool_calls: [call('after_compaction')] };
    const result: Message = { role: 'tool', tool_call_id: 'after_compaction', name: 'read_file', content: 'short' };
    const messages = deepFreeze([{ role: 'system', content: 'You are nanobot.' }, { role: 'user', content: 'Start.' }, anchorTurn, result, ...turns(100, 30), { role: 'user', content: 'What next?' }] as Message[]);
    const snipped = snipHistory(messages, { budget: budgetFor(messages, 0.3) });
    expect(snipped.serverAnchor).toBe('anchor-kept');
    expect(snipped.messages[1]).toBe(messages[2]);
    expect(snipped.messages[2]).toBe(messages[3]);
    expect(snipped.messages[3].role).toBe('user');
    expect(snipped.messages.at(-1)).toBe(messages.at(-1));
    expect(snipped.plan?.serverAnchor).toBe(1);
    expect(promptTokens(snipped.messages, {})).toBeLessThanOrEqual(budgetFor(messages, 0.3));
  });

  it('the tightest cut and the reference walk put a dropped anchor back too', () => {
    const { messages, anchor } = compacted(30);
    for (const options of [{ cuts: 'tightest' as const }, { compat: 'reference' as const }]) {
      const snipped = snipHistory(messages, { budget: budgetFor(messages, 0.3), ...options });
      expect(snipped.messages).toContain(anchor);
      expect(snipped.serverAnchor).toBe('anchor-kept');
    }
  });

  it('govern for Anthropic: the anchor turn byte-exact, a user turn before it, legal, the newest user turn kept, the report says why', () => {
    const { messages, anchor } = compacted(30);
    const budget = budgetFor(messages, 0.3);
    const { messages: out, report } = govern(messages, { target: 'anthropic', contextBlockLimit: budget, contextWindowTokens: 1_000_000 });
    expect(out).toContain(anchor);
    expect(out.at(-1)).toBe(messages.at(-1));
    expect(checkLegality(out, { target: 'anthropic', budget: report.budget })).toEqual([]);
    expect(report.cut?.serverCompaction).toBe('anchor-kept');
    expect(report.steps.find((s) => s.step === 'snipHistory')?.notes?.join(' ')).toMatch(/server compaction anchor/);
  });

  it('a re-applied plan keeps the anchor in front again, through a Governor as through govern', () => {
    const { messages, anchor } = compacted(30);
    const budget = budgetFor(messages, 0.3);
    const first = govern(messages, { target: 'anthropic', contextBlockLimit: budget, contextWindowTokens: 1_000_000 });
    const grown = deepFreeze([...messages, { role: 'assistant', content: 'Next.' }, { role: 'user', content: 'ok' }] as Message[]);
    const second = govern(grown, { target: 'anthropic', contextBlockLimit: budget, contextWindowTokens: 1_000_000, cutPlan: first.cutPlan });
    expect(second.report.cut?.reused).toBe(true);
    expect(second.messages).toContain(anchor);
    expect(second.report.cut?.serverCompaction).toBe('anchor-kept');
    // A Governor carries the plan itself; with or without its memos, the same copies.
    for (const memos of [true, false]) {
      const governor = createGovernor({ memos });
      const options = { target: 'anthropic' as const, contextBlockLimit: budget, contextWindowTokens: 1_000_000, sessionKey: 's' };
      expect(governor.govern(messages, options).messages).toEqual(first.messages);
      const again = governor.govern(grown, options);
      expect(again.messages).toEqual(second.messages);
      expect(again.report.cut?.reused).toBe(true);
    }
  });

  it('under budget nothing moves; without anchors nothing changes', () => {
    const { messages } = compacted(1);
    expect(snipHistory(messages, { budget: promptTokens(messages, {}) + 10 }).messages).toBe(messages);
    const plain = deepFreeze(turns(0, 5));
    expect(newestServerAnchor(plain)).toBe(-1);
    expect(keepServerAnchor(plain, plain.slice(3)).decision).toBeNull();
  });
});
