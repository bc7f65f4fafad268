import { govern } from '@nanobot/governor';
import type { Message } from "@nanobot/schema";
const WORDS = ['the', 'file', 'result', 'config', 'error', 'path', 'value', 'session', 'agent', 'tokens', 'window', 'budget'];
function sentence(seed: number, words: number): string { let s = ''; for (let i = 0; i < words; i++) s += `${WORDS[(seed * 7 + i * 13) % WORDS.length]}${i % 9 === 8 ? '.\n' : ' '}`; return s; }
function history(n: number, salt = 0): Message[] {
  const out: Message[] = [{ role: 'system', content: `You are nanobot.\n${sentence(salt, 200)}` }];
  let i = 0; let call = 0;
  while (out.length < n) {
    const s = salt * 100_003 + i++; const r = s % 10;
    if (r < 2) out.push({ role: 'user', content: `question ${s}: ${sentence(s, 20)}` });
    else if (r < 8) { const k = 1 + (s % 3); const ids = Array.from({ length: k }, () => `call_${salt}_${call++}`);
      out.push({ role: 'assistant', content: '', tool_calls: ids.map((id, j) => ({ id, type: 'function', function: { name: ['exec', 'read_file', 'grep'][j], arguments: `{"arg": "${s}"}` } })) });
      ids.forEach((id, j) => out.push({ role: 'tool', tool_call_id: id, name: ['exec', 'read_file', 'grep'][j], content: sentence(s + j, 10 + ((s * 31) % 300)) }));
    } else out.push({ role: 'assistant', content: `answer ${s}: ${sentence(s, 30)}` });
  }
  return JSON.parse(JSON.stringify(out.slice(0, n))) as Message[];
}
const h = history(10_000, 3);
const big = { contextWindowTokens: 50_000_000, maxOutputTokens: 4096 };
const variants: [string, () => void][] = [
  ['stringify', () => JSON.stringify(h)],
  ['any', () => govern(h, big)],
  ['openai', () => govern(h, { ...big, target: 'openai' })],
  ['ref', () => govern(h, { ...big, compat: 'reference' })],
  ['any nobudget', () => govern(h)],
];
const all = new Map<string, number[]>();
for (let round = 0; round < 25; round++) for (const [n, f] of variants) { const c0 = process.cpuUsage(); f(); const c = process.cpuUsage(c0); const t = (c.user + c.system) / 1000; all.set(n, [...(all.get(n) ?? []), t]); }
const med = (a: number[]) => [...a].sort((x, y) => x - y)[a.length >> 1];
const s = med(all.get('stringify')!);
console.log([...all].map(([n, t]) => `${n} min ${Math.min(...t).toFixed(2)} med ${med(t).toFixed(2)} ratio ${(med(t) / s).toFixed(2)}`).join('\n'));
