import { describe, expect, it } from 'vitest';
import type { Message, TokenEstimator, ToolDefinition } from '@nanobot/schema';
import { checkLegality } from '../../check-legality.js';
import { findLegalMessageStart } from './find-legal-message-start.js';
import { govern } from '../../govern.js';
import { promptTokens } from '../../sizing/estimate.js';
import { snipHistory } from './snip-history.js';
import { deepFreeze } from '@nanobot-internal/test-support';

const WORDS = 'we agreed to keep the rollout gradual and watch the error budget closely while the team reviews every dashboard'.split(' ');
const filler = (seed: number, n: number) => Array.from({ length: n }, (_, i) => WORDS[(seed * 7 + i * 3) % WORDS.length]).join(' ');
const readCall = (id: string) => ({ id, type: 'function' as const, function: { name: 'read_file', arguments: '{"path": "notes.md"}' } });
const tools: ToolDefinition[] = [
  { type: 'function', function: { name: 'read_file', description: 'Read a workspace file', parameters: { type: 'object', properties: { path: { type: 'string' } } } } },
];

/** A long session of short turns (some with a tool call), then one turn with `iterations` tool steps. */
function session(iterations: number): { messages: Message[]; history: Message[] } {
  const history: Message[] = [];
  for (let t = 0; t < 24; t++) {
    history.push({ role: 'user', content: `Turn ${t + 1}: status? ${filler(t, 30)}` });
    if (t % 4 === 1) history.push({ role: 'assistant', content: '', tool_calls: [readCall(`p${t}`)] }, { role: 'tool', tool_call_id: `p${t}`, name: 'read_file', content: filler(t + 1, 60) });
    history.push({ role: 'assistant', content: `Status (turn ${t + 1}): ${filler(t + 2, 90)}` });
  }
  const messages: Message[] = [{ role: 'system', content: 'You are nanobot. '.repeat(40) }, ...history, { role: 'user', content: 'Summarise the build log.' }];
  for (let i = 0; i < iterations; i++) {
    messages.push({ role: 'assistant', content: '', tool_calls: [readCall(`c${i}`)] }, { role: 'tool', tool_call_id: `c${i}`, name: 'read_file', content: `${i}| step ok\n`.repeat(8) });
  }
  return { messages: deepFreeze(messages), history };
}

/** The longest `system + tail` starting at a user message that fits, by exact prompt estimate. */
function longestFittingUserTail(messages: Message[], budget: number): Message[] | null {
  const system = messages.filter((m) => m.role === 'system');
  const rest = messages.filter((m) => m.role !== 'system');
  for (let u = 0; u < rest.length; u++) {
    if (rest[u].role !== 'user') continue;
    const tail = rest.slice(u).slice(findLegalMessageStart(rest.slice(u)));
    const out = [...system, ...tail];
    if (promptTokens(out, { tools }) <= budget) return out;
  }
  return null;
}

describe('snipHistory', () => {
  it('never drops the whole history when the reference window overflows by a few tokens (web demo, 3rd request of a turn)', () => {
    let overflowed = 0;
    for (const iterations of [0, 1, 2, 3]) {
      const { messages, history } = session(iterations);
      for (let budget = 900; budget < 3000; budget += 7) {
        const ours = snipHistory(messages, { budget, tools, cuts: 'tightest' });
        const ref = snipHistory(messages, { budget, tools, compat: 'reference' });
        if (ref.tokensAfter! <= budget) {
          expect(ours.messages).toEqual(ref.messages);
          continue;
        }
        overflowed++;
        // The reference's per-message walk undercounts the joined prompt: it overflowed, and the
        // old fallback cut to the current turn alone. We keep the longest whole-turn tail that fits.
        const best = longestFittingUserTail(messages, budget);
        expect(best).not.toBeNull();
        expect(ours.messages).toEqual(best);
        expect(ours.laterTurn).toBe(true);
        expect(ours.loopSnipped).toBe(false);
        expect(ours.tokensAfter!).toBeLessThanOrEqual(budget);
        expect(ours.messages.filter((m) => history.includes(m)).length).toBeGreaterThan(0);
        expect(checkLegality(ours.messages, { budget, tools, request: true })).toEqual([]);
      }
    }
    expect(overflowed).toBeGreaterThan(10);
  });

  it('keeps history across the requests of one turn in govern (window sweep like the web demo)', () => {
    const requests = [0, 1, 2, 3].map((n) => session(n));
    for (let window = 3000; window < 4200; window += 3) {
      const kept = requests.map(({ messages, history }) => {
        const { messages: out, report } = govern(messages, { contextWindowTokens: window, maxOutputTokens: 1024, tools, inflightStartIndex: history.length + 2 });
        expect(report.tokensAfter!).toBeLessThanOrEqual(report.budget);
        return out.filter((m) => history.includes(m)).length;
      });
      // One tool step (~60 tokens) may cost a whole old turn, never all of them.
      for (let i = 1; i < kept.length; i++) expect(kept[i - 1] - kept[i], `window ${window}: ${kept.join(' ')}`).toBeLessThanOrEqual(4);
    }
  });

  it('keeps an earlier turn whole or not at all, as the reference does (README "Not changed")', () => {
    const messages: Message[] = [{ role: 'system', content: 'sys' }, { role: 'user', content: 'earlier long task' }];
    for (let i = 0; i < 12; i++) messages.push({ role: 'assistant', content: '', tool_calls: [readCall(`h${i}`)] }, { role: 'tool', tool_call_id: `h${i}`, name: 'read_file', content: filler(i, 80) });
    messages.push({ role: 'assistant', content: 'done' }, { role: 'user', content: 'next question' });
    deepFreeze(messages);
    const budget = promptTokens(messages, {}) - 10;
    const ours = snipHistory(messages, { budget });
    // Dropping 10 tokens cuts the earlier turn's user message, and a tail must start at a user
    // message: the whole earlier turn goes.
    expect(ours.messages.map((m) => m.content)).toEqual(['sys', 'next question']);
    expect(ours.messages).toEqual(snipHistory(messages, { budget, compat: 'reference' }).messages);
    expect(ours.laterTurn || ours.loopSnipped).toBe(false);
  });

  it('still cuts inside the last turn when even that turn alone overflows', () => {
    const { messages } = session(40);
    const r = snipHistory(messages, { budget: 1500, tools });
    expect(r.loopSnipped).toBe(true);
    expect(r.laterTurn).toBe(false);
    expect(r.messages[1]).toMatchObject({ role: 'user', content: 'Summarise the build log.' });
    expect(r.tokensAfter!).toBeLessThanOrEqual(1500);
    expect(checkLegality(r.messages, { budget: 1500, tools, request: true })).toEqual([]);
  });
});

describe("snipHistory, cuts: 'tightest' without a counter (the per-message walk)", () => {
  // An estimator whose per-message counts run above the joined prompt's (as a real one may: a
  // joined prompt shares its framing): the walk then finds less room than the whole prompt has.
  const chars = (m: Message): number => (typeof m.content === 'string' ? m.content.length : 0) + JSON.stringify(m.tool_calls ?? '').length;
  const estimator: TokenEstimator = {
    mode: 'provider',
    tokenizer: 'cl100k_base',
    promptTokens: (messages) => [messages.reduce((n, m) => n + Math.ceil(chars(m) / 4), 0), 'heuristic'],
    messageTokens: (m) => Math.ceil(chars(m) / 3),
    toolsTokens: () => 0,
  };
  const call = (id: string): Message => ({ role: 'assistant', content: '', tool_calls: [{ id, type: 'function', function: { name: 'exec', arguments: '{}' } }] });
  const result = (id: string, n: number): Message => ({ role: 'tool', tool_call_id: id, name: 'exec', content: `${id} `.repeat(n) });

  it('never cuts into the step the model waits on: the call and its results stay, older loop steps go', () => {
    const history = deepFreeze<Message[]>([
      { role: 'system', content: 's'.repeat(400) },
      { role: 'user', content: 'u'.repeat(400) },
      call('old1'), result('old1', 400),
      call('old2'), result('old2', 400),
      call('now'), result('now', 200),
    ]);
    // The joined prompt of system + user + the pending step fits; by per-message counts it does not.
    const minimal = [history[0], history[1], history[6], history[7]];
    const budget = estimator.promptTokens(minimal)[0] + 10;
    expect(minimal.slice(1).reduce((n, m) => n + estimator.messageTokens(m), 0)).toBeGreaterThan(budget - estimator.promptTokens([history[0]])[0]);
    const out = snipHistory(history, { budget, estimator, cuts: 'tightest' });
    expect(out.messages).toEqual(minimal);
    expect(out.messages.at(-2)).toBe(history[6]);
  });
});
