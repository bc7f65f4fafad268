// The LangChain dialect against the plain governor: a warm call on a 10,000-message history in
// each shape, measured in one run (interleaved) and printed as ratios (goal: ≤ 2× the
// OpenAI-shaped call), and the middleware on a rebuilt history (a checkpointer reload) against a
// warm govern. Asserts nothing about time.
import { AIMessage, HumanMessage, SystemMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import { govern, type GovernOptions } from '@nanobot/governor';
import type { Message } from '@nanobot/schema';
import { governBaseMessages, governorMiddleware } from '@nanobot/langchain';

const WORDS = ['the', 'file', 'result', 'config', 'error', 'path', 'value', 'session', 'agent', 'tokens', 'window', 'budget'];
const sentence = (seed: number, n: number) => Array.from({ length: n }, (_, i) => WORDS[(seed * 7 + i * 13) % WORDS.length]).join(' ');

/** The same session in both shapes: user turns, tool loops of 1–3 calls, replies. */
function histories(n: number): { openai: Message[]; lc: BaseMessage[] } {
  const system = `You are nanobot. ${sentence(1, 200)}`;
  const openai: Message[] = [{ role: 'system', content: system }];
  const lc: BaseMessage[] = [new SystemMessage(system)];
  let call = 0;
  for (let s = 0; openai.length < n; s++) {
    const r = s % 10;
    if (r < 2) {
      const text = `question ${s}: ${sentence(s, 20)}`;
      openai.push({ role: 'user', content: text });
      lc.push(new HumanMessage(text));
    } else if (r < 8) {
      const names = ['exec', 'read_file', 'grep'].slice(0, 1 + (s % 3));
      const ids = names.map(() => `call_${call++}`);
      openai.push({ role: 'assistant', content: null, tool_calls: ids.map((id, j) => ({ id, type: 'function', function: { name: names[j], arguments: JSON.stringify({ arg: `${s}` }) } })) });
      lc.push(new AIMessage({ content: '', tool_calls: ids.map((id, j) => ({ id, name: names[j], args: { arg: `${s}` }, type: 'tool_call' })) }));
      ids.forEach((id, j) => {
        const out = sentence(s + j, 10 + ((s * 31) % 300));
        openai.push({ role: 'tool', tool_call_id: id, name: names[j], content: out });
        lc.push(new ToolMessage({ content: out, tool_call_id: id, name: names[j] }));
      });
    } else {
      const text = `answer ${s}: ${sentence(s, 30)}`;
      openai.push({ role: 'assistant', content: text });
      lc.push(new AIMessage(text));
    }
  }
  return { openai, lc };
}

/** New messages with the same fields, as a checkpointer reload makes them. */
function rebuilt(list: readonly BaseMessage[]): BaseMessage[] {
  return list.map((m) => {
    if (m.type === 'system') return new SystemMessage(m.content as string);
    if (m.type === 'human') return new HumanMessage(m.content as string);
    if (m.type === 'tool') return new ToolMessage({ content: m.content as string, tool_call_id: (m as ToolMessage).tool_call_id, name: (m as ToolMessage).name });
    return new AIMessage({ content: m.content as string, tool_calls: structuredClone((m as AIMessage).tool_calls) });
  });
}

const mid = (t: number[]) => t.sort((a, b) => a - b)[Math.floor(t.length / 2)];
const fmt = (ms: number) => `${ms.toFixed(2)} ms`;

async function interleaved(fns: (() => unknown)[], repeat: number): Promise<number[]> {
  const times = fns.map(() => [] as number[]);
  for (let i = 0; i < repeat; i++) {
    for (let j = 0; j < fns.length; j++) {
      const t0 = performance.now();
      await fns[j]();
      times[j].push(performance.now() - t0);
    }
  }
  return times.map(mid);
}

const { openai, lc } = histories(10_000);
console.log(`history: ${openai.length} messages in each shape`);
for (const [label, options] of [['under a 50M-token window', { contextWindowTokens: 50_000_000, maxOutputTokens: 4096 }], ['no window (repairs only)', {}]] as [string, GovernOptions][]) {
  const middleware = governorMiddleware(options);
  // The request createAgent hands the hook (only the fields the hook reads).
  const request = { messages: lc.slice(1), systemMessage: lc[0], tools: [] } as unknown as Parameters<NonNullable<typeof middleware.wrapModelCall>>[0];
  const handler = (() => new AIMessage('ok')) as unknown as Parameters<NonNullable<typeof middleware.wrapModelCall>>[1];
  const viaMiddleware = () => middleware.wrapModelCall!(request, handler);
  const fns = [() => govern(openai, options), () => governBaseMessages(lc, options), viaMiddleware];
  await interleaved(fns, 15); // warm caches and JIT
  const [base, dialect, mw] = await interleaved(fns, 41);
  console.log(`${label}:`);
  console.log(`   govern (OpenAI shape) ${fmt(base)}, governBaseMessages ${fmt(dialect)}, ratio = ${(dialect / base).toFixed(2)} (goal ≤ 2)`);
  console.log(`   createAgent middleware (wrapModelCall, system message counted) ${fmt(mw)}, ratio = ${(mw / base).toFixed(2)} (goal ≤ 2)`);
  // The history as a checkpointer reload gives it: new message objects (tool calls deep-copied),
  // built right before each call (not timed), the warm govern timed after the same build.
  const reloaded: number[] = [];
  const warm: number[] = [];
  for (let i = 0; i < 31; i++) {
    const copy = rebuilt(lc);
    const t0 = performance.now();
    govern(openai, options);
    const t1 = performance.now();
    await middleware.wrapModelCall!({ ...request, messages: copy.slice(1), systemMessage: copy[0] } as typeof request, handler);
    const t2 = performance.now();
    if (i >= 5) {
      warm.push(t1 - t0);
      reloaded.push(t2 - t1);
    }
  }
  console.log(`   middleware on rebuilt messages (new objects, equal fields) ${fmt(mid(reloaded))}, ratio = ${(mid(reloaded) / mid(warm)).toFixed(2)} to a warm govern`);
}
const j = await interleaved([() => JSON.stringify(openai)], 21);
console.log(`one JSON.stringify of the OpenAI-shaped history: ${fmt(j[0])}`);
