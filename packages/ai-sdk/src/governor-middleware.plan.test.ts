// The middleware carries each conversation's cut plan (issue 31): over a recorded long session
// served call by call (each prompt rebuilt, as the SDK does), the cut is re-applied from call to
// call exactly as govern with the plan threaded by hand, conversations are told apart by
// `providerOptions.nanobot.sessionKey` or by their opening, and a rebuilt prompt resumes.
import { govern, type CutPlan, type GovernReport } from '@nanobot/governor';
import { DialectMemo } from '@nanobot/governor/dialect';
import type { ModelMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import { governorMiddleware, type GovernedCallOptions } from './governor-middleware.js';
import { toGovernorView } from './internal/to-governor-messages.js';
import { mockModel } from './test-support/mock-model.js';
import { loadTranscript, toModelMessages, transcriptFiles } from './test-support/transcripts.js';

const WINDOW = 16_000;
const file = transcriptFiles().find((f) => f.startsWith('badlogic-pi-mono__session-20251217'))!;
const openai = loadTranscript(file);
const ai = toModelMessages(openai);

function requestEnds(roles: readonly string[]): number[] {
  const out: number[] = [];
  for (let i = 1; i < roles.length; i++) if (roles[i] === 'assistant' && roles[i - 1] !== 'assistant') out.push(i);
  return out;
}

/** The provider-level prompt the SDK builds: every message and part a new object. */
function rebuilt(messages: readonly ModelMessage[]): GovernedCallOptions['prompt'] {
  return messages.map((m) => (m.role === 'system'
    ? { role: 'system', content: m.content }
    : { role: m.role, content: typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content.map((p) => ({ ...p })) })) as GovernedCallOptions['prompt'];
}

async function serve(middleware: ReturnType<typeof governorMiddleware>, prompt: GovernedCallOptions['prompt'], providerOptions?: GovernedCallOptions['providerOptions']): Promise<void> {
  await middleware.transformParams!({ type: 'generate', params: providerOptions === undefined ? { prompt } : { prompt, providerOptions }, model: mockModel() });
}

describe('governorMiddleware carries the cut plan', () => {
  const aiEnds = requestEnds(ai.map((m) => m.role));
  const openaiEnds = requestEnds(openai.map((m) => m.role));

  it('re-applies the cut from call to call, as govern with the plan threaded by hand', async () => {
    expect(aiEnds.length).toBe(openaiEnds.length);
    // By hand: govern on the governor's view of each prompt, the plan passed back.
    let plan: CutPlan | null = null;
    const byHand = aiEnds.map((end) => {
      const view = toGovernorView(rebuilt(ai.slice(0, end)), 'test', new DialectMemo()).messages;
      const r = govern(view, { contextWindowTokens: WINDOW, cutPlan: plan });
      plan = r.cutPlan;
      return r.report.cut;
    });
    const reports: GovernReport[] = [];
    const middleware = governorMiddleware({ contextWindowTokens: WINDOW, onReport: (r) => reports.push(r) });
    for (const end of aiEnds) await serve(middleware, rebuilt(ai.slice(0, end)));
    expect(reports.map((r) => r.cut)).toEqual(byHand);
    expect(reports.filter((r) => r.cut?.reused).length).toBeGreaterThan(aiEnds.length / 2);
    // A middleware made afresh for every call (no carried plan) never re-applies a cut.
    const fresh: GovernReport[] = [];
    for (const end of aiEnds.slice(-5)) await serve(governorMiddleware({ contextWindowTokens: WINDOW, onReport: (r) => fresh.push(r) }), rebuilt(ai.slice(0, end)));
    expect(fresh.some((r) => r.cut?.reused)).toBe(false);
  }, 300_000);

  it('keeps conversations apart by providerOptions.nanobot.sessionKey, and by their opening otherwise', async () => {
    // Bob's conversation shares Alice's opening, then says other things.
    const firstUser = ai.findIndex((m) => m.role === 'user');
    const bobs = ai.map((m, i) => (m.role === 'user' && i > firstUser ? { ...m, content: `bob says ${i}` } : m)) as ModelMessage[];
    const ends = aiEnds.slice(-8);
    const run = async (users: [string, ModelMessage[]][], keyed: boolean): Promise<Map<string, GovernReport[]>> => {
      const reports = new Map<string, GovernReport[]>();
      let current = '';
      const middleware = governorMiddleware({ contextWindowTokens: WINDOW, onReport: (r) => reports.set(current, [...(reports.get(current) ?? []), r]) });
      for (const end of ends) {
        for (const [key, h] of users) {
          current = key;
          await serve(middleware, rebuilt(h.slice(0, end)), keyed ? { nanobot: { sessionKey: key } } : undefined);
        }
      }
      return reports;
    };
    const alone = await run([['bob', bobs]], true);
    const together = await run([['alice', ai], ['bob', bobs]], true);
    expect(together.get('bob')!.map((r) => r.cut)).toEqual(alone.get('bob')!.map((r) => r.cut));
    expect(together.get('bob')!.slice(1).some((r) => r.cut?.reused)).toBe(true);
    // Without keys, two conversations with different openings are told apart too.
    const carol = ai.map((m, i) => (i === firstUser ? { ...m, content: 'carol opens differently' } : m)) as ModelMessage[];
    const unkeyed = await run([['alice', ai], ['carol', carol]], false);
    expect(unkeyed.get('carol')!.slice(1).some((r) => r.cut?.reused)).toBe(true);
    expect(unkeyed.get('alice')!.map((r) => r.cut)).toEqual((await run([['alice', ai]], false)).get('alice')!.map((r) => r.cut));
  }, 300_000);
});
