// The LangChain middleware carries each conversation's cut plan (issue 31): a long conversation
// invoked turn after turn through the real createAgent re-applies its cut (stable prefix), keyed
// by the run's thread_id; a middleware without that memory cuts afresh every call.
import { AIMessage, HumanMessage, type BaseMessage } from '@langchain/core/messages';
import type { GovernReport } from '@nanobot/governor';
import { createAgent } from 'langchain';
import { describe, expect, it } from 'vitest';
import { governorMiddleware } from './governor-middleware.js';
import { RecordingChatModel } from './test-support/recording-chat-model.js';

const WORDS = ['the', 'file', 'result', 'config', 'error', 'path', 'value', 'session'];
const text = (seed: number, n: number) => Array.from({ length: n }, (_, i) => WORDS[(seed * 7 + i * 3) % WORDS.length]).join(' ');

/** A long conversation: `turns` questions and answers of a few hundred tokens each. */
function conversation(turns: number): BaseMessage[] {
  const out: BaseMessage[] = [];
  for (let t = 0; t < turns; t++) out.push(new HumanMessage(`q${t}: ${text(t, 200)}`), new AIMessage(`a${t}: ${text(t + 1, 200)}`));
  return out;
}

async function invokeTurns(middleware: ReturnType<typeof governorMiddleware>, history: BaseMessage[], from: number, thread: string): Promise<void> {
  for (let n = from; n <= history.length; n += 2) {
    const agent = createAgent({ model: new RecordingChatModel([new AIMessage('ok')]), tools: [], middleware: [middleware] });
    await agent.invoke({ messages: [...history.slice(0, n - 1), new HumanMessage(`next ${n}`)] }, { configurable: { thread_id: thread } });
  }
}

describe('governorMiddleware (LangChain) carries the cut plan per thread', () => {
  const history = conversation(40);

  it('re-applies the cut on later calls of a thread; a fresh middleware each call never does', async () => {
    const reports: GovernReport[] = [];
    const kept = governorMiddleware({ contextWindowTokens: 12_000, maxOutputTokens: 1_000, onReport: (r) => reports.push(r) });
    await invokeTurns(kept, history, 61, 'thread-a');
    expect(reports.length).toBeGreaterThan(5);
    expect(reports.every((r) => r.fits && (r.cut?.removed ?? 0) > 0)).toBe(true);
    expect(reports.slice(1).filter((r) => r.cut?.reused).length).toBeGreaterThan(reports.length / 2);

    const fresh: GovernReport[] = [];
    for (let n = 61; n <= history.length; n += 2) {
      await invokeTurns(governorMiddleware({ contextWindowTokens: 12_000, maxOutputTokens: 1_000, onReport: (r) => fresh.push(r) }), history.slice(0, n), n, 'thread-a');
    }
    expect(fresh.some((r) => r.cut?.reused)).toBe(false);
  }, 300_000);

  it('keeps two threads with the same opening apart', async () => {
    // Thread b shares a's opening turn, then says other things.
    const other = history.map((m, i) => (i >= 2 && i % 2 === 0 ? new HumanMessage(`other ${i}: ${text(i + 5, 200)}`) : m));
    const run = async (threads: [string, BaseMessage[]][]): Promise<Map<string, GovernReport[]>> => {
      const byThread = new Map<string, GovernReport[]>();
      let current = '';
      const middleware = governorMiddleware({ contextWindowTokens: 12_000, maxOutputTokens: 1_000, onReport: (r) => byThread.set(current, [...(byThread.get(current) ?? []), r]) });
      for (let n = 61; n <= history.length; n += 2) {
        for (const [thread, h] of threads) {
          current = thread;
          await invokeTurns(middleware, h.slice(0, n), n, thread);
        }
      }
      return byThread;
    };
    const together = await run([['a', history], ['b', other]]);
    const alone = await run([['b', other]]);
    expect(together.get('b')!.map((r) => r.cut)).toEqual(alone.get('b')!.map((r) => r.cut));
    expect(together.get('b')!.slice(1).some((r) => r.cut?.reused)).toBe(true);
  }, 300_000);
});
