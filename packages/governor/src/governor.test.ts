import { describe, expect, it } from 'vitest';
import { ValidationError, type Message } from '@nanobot/schema';
import { deepFreeze } from '@nanobot-internal/test-support';
import { govern } from './govern.js';
import type { GovernOptions } from './govern-options.js';
import { createGovernor, type Governor } from './governor.js';
import type { CutPlan } from './steps/cut/cut-plan.js';
import { loadTranscript, transcriptFiles } from './test-support/node/transcripts.js';

/** Request points of a recorded session: prefixes ending right before an assistant message. */
function requestEnds(messages: readonly Message[]): number[] {
  const out: number[] = [];
  for (let i = 1; i < messages.length; i++) if (messages[i].role === 'assistant' && messages[i - 1].role !== 'assistant') out.push(i);
  return out;
}

const session = loadTranscript(transcriptFiles().find((f) => f.startsWith('badlogic-pi-mono__session-20251217'))!);
const WINDOW: GovernOptions = { contextWindowTokens: 16_000 };

/** govern with the cut plan threaded by hand, and the compacted ids per run (user turn). */
function byHand(history: readonly Message[], ends: readonly number[], options: GovernOptions): string[] {
  let plan: CutPlan | null = null;
  let ids = new Set<string>();
  let run = -1;
  return ends.map((end) => {
    const prefix = history.slice(0, end);
    const lastUser = prefix.findLastIndex((m) => m.role === 'user');
    if (lastUser !== run) {
      run = lastUser;
      ids = new Set();
    }
    const r = govern(prefix, { ...options, cutPlan: plan, compactedToolCallIds: ids });
    plan = r.cutPlan;
    return JSON.stringify([r.messages, r.report]);
  });
}

/**
 * Each history's prefixes governed without a key, the histories taking turns (each conversation
 * must keep its own plan): the requests of each, as JSON.
 */
function interleaved(governor: Governor, histories: readonly (readonly Message[])[], ends: readonly number[]): string[][] {
  const out = histories.map(() => [] as string[]);
  for (const end of ends) {
    histories.forEach((h, k) => {
      const r = governor.govern(h.slice(0, end));
      out[k].push(JSON.stringify([r.messages, r.report]));
    });
  }
  return out;
}

describe('createGovernor', () => {
  const ends = requestEnds(session).filter((_, k) => k % 3 === 0);

  it('carries each conversation’s cut plan and compacted ids: the same requests as threading them by hand', () => {
    const want = byHand(session, ends, WINDOW);
    const governor = createGovernor(WINDOW);
    const got = ends.map((end) => {
      const r = governor.govern(session.slice(0, end), { sessionKey: 'chat-1' });
      return JSON.stringify([r.messages, r.report]);
    });
    expect(got).toEqual(want);
    // The plan was re-applied on most requests (it cut, and then held).
    expect(got.filter((j) => j.includes('"reused":true')).length).toBeGreaterThan(ends.length / 2);
  });

  it('recognises a conversation by its opening messages when no key is given, and tells two apart', () => {
    const other = deepFreeze(session.map((m, i) => (i === 0 ? { ...m, content: `(another user) ${String(m.content)}` } : m)) as Message[]);
    const governor = createGovernor(WINDOW);
    const [a, b] = interleaved(governor, [session, other], ends);
    expect(a).toEqual(byHand(session, ends, WINDOW));
    expect(b).toEqual(byHand(other, ends, WINDOW));
    expect(governor.size).toBe(2);
  });

  it('tells apart two conversations that share their first message object but not the rest of their opening', () => {
    // The same system prompt object, another first user message: another conversation.
    const system: Message = deepFreeze({ role: 'system', content: 'You are a careful coding agent.' });
    const one = [system, ...session];
    const firstUser = one.findIndex((m) => m.role === 'user');
    const other = [system, ...deepFreeze(session.map((m, i) => (i === firstUser - 1 ? { ...m, content: `(another task) ${String(m.content)}` } : m)) as Message[])];
    const governor = createGovernor(WINDOW);
    const at = ends.map((end) => end + 1);
    const [a, b] = interleaved(governor, [one, other], at);
    expect(a).toEqual(byHand(one, at, WINDOW));
    expect(b).toEqual(byHand(other, at, WINDOW));
    expect(governor.size).toBe(2);
  });

  it('a history rebuilt from storage (equal messages, new objects) resumes, and the copy holds the caller’s objects', () => {
    const governor = createGovernor(WINDOW);
    const end = ends[ends.length - 1];
    const first = governor.govern(session.slice(0, end), { sessionKey: 's' });
    const reloaded = JSON.parse(JSON.stringify(session.slice(0, end))) as Message[];
    const again = governor.govern(reloaded, { sessionKey: 's' });
    expect(JSON.stringify(again.messages)).toBe(JSON.stringify(first.messages));
    expect(again.report.cut?.reused).toBe(true);
    const mine = new Set(reloaded);
    const theirs = new Set<Message>(session);
    for (const m of again.messages) expect(theirs.has(m)).toBe(false);
    expect(again.messages.filter((m) => mine.has(m)).length).toBeGreaterThan(again.messages.length / 2);
  });

  it('a call’s own cutPlan (even null) wins over the carried one', () => {
    const governor = createGovernor(WINDOW);
    governor.govern(session.slice(0, ends[ends.length - 2]), { sessionKey: 's' });
    const fresh = governor.govern(session.slice(0, ends[ends.length - 1]), { sessionKey: 's', cutPlan: null });
    expect(JSON.stringify(fresh.report)).toBe(JSON.stringify(govern(session.slice(0, ends[ends.length - 1]), WINDOW).report));
  });

  it('with memos off gives exactly the same requests', () => {
    const on = createGovernor(WINDOW);
    const off = createGovernor({ ...WINDOW, memos: false });
    for (const end of ends) {
      const a = on.govern(session.slice(0, end), { sessionKey: 'k' });
      const b = off.govern(session.slice(0, end), { sessionKey: 'k' });
      expect(JSON.stringify([a.messages, a.report, a.cutPlan])).toBe(JSON.stringify([b.messages, b.report, b.cutPlan]));
    }
  });

  it('forgets a conversation on request and beyond maxConversations (least recently used first)', () => {
    const governor = createGovernor({ ...WINDOW, maxConversations: 2 });
    const h = session.slice(0, ends[ends.length - 1]);
    governor.govern(h, { sessionKey: 'a' });
    governor.govern(h, { sessionKey: 'b' });
    expect(governor.sessionState('a')?.cutPlan).not.toBeNull();
    governor.govern(h, { sessionKey: 'a' }); // a is now the most recently used
    governor.govern(h, { sessionKey: 'c' });
    expect(governor.sessionState('b')).toBeUndefined();
    expect(governor.sessionState('a')).toBeDefined();
    expect(governor.forget('a')).toBe(true);
    expect(governor.forget('a')).toBe(false);
    expect(governor.sessionState('a')).toBeUndefined();
    expect(governor.govern(h, { sessionKey: 'a' }).report.cut?.reused).toBe(false);
  });

  it('learns the billed count from observeUsage and sizes the next requests of a model by it; the state round-trips as JSON', () => {
    const governor = createGovernor({ model: 'gpt-4o', contextWindowTokens: 16_000 });
    const h = session.slice(0, ends[ends.length - 1]);
    const before = governor.govern(h, { sessionKey: 's' });
    expect(before.report.tokensCalibrated).toBeUndefined();
    expect(governor.observeUsage({ sessionKey: 's', inputTokens: Math.round(before.report.tokensAfter! * 1.4) })).toBe(true);
    const after = governor.govern(h, { sessionKey: 's', cutPlan: null });
    expect(after.report.tokensCalibrated).toBeGreaterThan(after.report.tokensEstimated!);
    expect(after.report.budget).toBeLessThan(before.report.budget);
    const state = JSON.parse(JSON.stringify(governor.sessionState('s')));
    const restored = createGovernor({ model: 'gpt-4o', contextWindowTokens: 16_000 });
    restored.restoreSession('s', state);
    const again = restored.govern(h, { sessionKey: 's', cutPlan: null });
    expect(again.report.budget).toBe(after.report.budget);
    expect(governor.observeUsage({ sessionKey: 'unknown', inputTokens: 10 })).toBe(false);
  });

  it('refuses bad options and bad state with a ValidationError, before governing anything', () => {
    expect(() => createGovernor({ maxConversations: 0 })).toThrow(ValidationError);
    expect(() => createGovernor({ memos: 'yes' as unknown as boolean })).toThrow(ValidationError);
    expect(() => createGovernor({ contextWindowTokens: '8k' as unknown as number })).toThrow(ValidationError);
    const governor = createGovernor();
    expect(() => governor.govern(session, { target: 'cohere' as unknown as 'openai' })).toThrow(ValidationError);
    expect(() => governor.govern('nope' as unknown as Message[])).toThrow(ValidationError);
    expect(() => governor.restoreSession('s', { version: 2 } as unknown as Parameters<typeof governor.restoreSession>[1])).toThrow(ValidationError);
    expect(governor.size).toBe(0);
  });
});
