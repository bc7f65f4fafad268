// governAnthropic and governResponses against govern on the same 10,000-message history (a
// realistic session: user turns, tool loops of 1–3 calls, results of 50–2000 chars, replies,
// reasoning on some turns), converted to each dialect. Warm calls: the same stored objects
// governed again, as a client does before each request. Target: each dialect ≤ 2× govern.
// Prints figures and ratios measured in this run; asserts nothing about time.
import type { Message } from '@nanobot/schema';
import { govern, type GovernOptions } from '@nanobot/governor';
import { governAnthropic } from '@nanobot/governor/anthropic';
import { governResponses } from '@nanobot/governor/responses';
import { toAnthropicHistory, toResponsesInput } from '../src/test-support/dialect-histories.js';

const WORDS = ['the', 'file', 'result', 'config', 'error', 'path', 'value', 'session', 'agent', 'tokens', 'window', 'budget'];

function sentence(seed: number, words: number): string {
  let s = '';
  for (let i = 0; i < words; i++) s += `${WORDS[(seed * 7 + i * 13) % WORDS.length]}${i % 9 === 8 ? '.\n' : ' '}`;
  return s;
}

function history(n: number): Message[] {
  const out: Message[] = [{ role: 'system', content: `You are nanobot.\n${sentence(1, 200)}` }];
  let i = 0;
  let call = 0;
  while (out.length < n) {
    const s = i++;
    const r = s % 10;
    if (r < 2) out.push({ role: 'user', content: `question ${s}: ${sentence(s, 20)}` });
    else if (r < 8) {
      const ids = Array.from({ length: 1 + (s % 3) }, () => `call_${call++}`);
      const msg: Message = { role: 'assistant', content: '', tool_calls: ids.map((id, j) => ({ id, type: 'function', function: { name: ['exec', 'read_file', 'grep'][j], arguments: `{"arg": "${s}"}` } })) };
      if (s % 4 === 0) msg.reasoning_content = sentence(s, 15);
      out.push(msg);
      ids.forEach((id, j) => out.push({ role: 'tool', tool_call_id: id, name: ['exec', 'read_file', 'grep'][j], content: sentence(s + j, 10 + ((s * 31) % 300)) }));
    } else out.push({ role: 'assistant', content: `answer ${s}: ${sentence(s, 30)}` });
  }
  while (out.length > 1 && out[out.length - 1].role !== 'user') out.pop();
  return JSON.parse(JSON.stringify(out)) as Message[];
}

const fmt = (ms: number) => `${ms.toFixed(2)} ms`;
const chat = history(10_000);
const anthropic = toAnthropicHistory(chat);
const responses = toResponsesInput(chat);
console.log(`history: ${chat.length} chat messages = ${anthropic.messages.length} Anthropic turns = ${responses.length} Responses items`);

const CASES: [string, Omit<GovernOptions, 'tools'>][] = [
  ['under budget (50M window)', { contextWindowTokens: 50_000_000, maxOutputTokens: 4096 }],
  ['no budget (repairs only)', {}],
  ['over budget (128k: snipping)', { contextWindowTokens: 128_000, contextBlockLimit: 128_000 }],
];
for (const [label, options] of CASES) {
  for (let i = 0; i < 10; i++) {
    govern(chat, options);
    governAnthropic(anthropic, options);
    governResponses(responses, options);
  }
  // Each variant warmed up right before it is timed, as a client governs its own history again
  // and again (the caches of one history do not pay for another's).
  const times: Record<'g' | 'ga' | 'go' | 'a' | 'r', number[]> = { g: [], ga: [], go: [], a: [], r: [] };
  const time = (key: keyof typeof times, fn: () => void) => {
    for (let i = 0; i < 5; i++) fn();
    for (let i = 0; i < 21; i++) {
      const t0 = performance.now();
      fn();
      times[key].push(performance.now() - t0);
    }
  };
  time('g', () => govern(chat, options));
  time('ga', () => govern(chat, { ...options, target: 'anthropic' }));
  time('go', () => govern(chat, { ...options, target: 'openai' }));
  time('a', () => governAnthropic(anthropic, options));
  time('r', () => governResponses(responses, options));
  const med = (k: keyof typeof times) => times[k].sort((x, y) => x - y)[10];
  const [g, ga, go, a, r] = [med('g'), med('ga'), med('go'), med('a'), med('r')];
  console.log(`${label}: govern ${fmt(g)} (target 'anthropic' ${fmt(ga)}, 'openai' ${fmt(go)})`);
  console.log(`   governAnthropic ${fmt(a)}: ${(a / g).toFixed(2)}x govern, ${(a / ga).toFixed(2)}x govern with the same target (goal <= 2x)`);
  console.log(`   governResponses ${fmt(r)}: ${(r / g).toFixed(2)}x govern, ${(r / go).toFixed(2)}x govern with the same target (goal <= 2x)`);
}
