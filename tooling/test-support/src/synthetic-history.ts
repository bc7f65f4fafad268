// Synthetic sessions shared by the governor's and the runner's benchmarks.

/** The OpenAI-chat messages these sessions hold (a structural subset of @nanobot/schema's `Message`). */
export interface SyntheticMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string;
  tool_calls?: { id: string; type: 'function'; function: { name: string; arguments: string } }[];
  tool_call_id?: string;
  name?: string;
  [key: string]: unknown;
}

const WORDS = ['the', 'file', 'result', 'config', 'error', 'path', 'value', 'session', 'agent', 'tokens', 'window', 'budget'];

function sentence(seed: number, words: number): string {
  let s = '';
  for (let i = 0; i < words; i++) s += `${WORDS[(seed * 7 + i * 13) % WORDS.length]}${i % 9 === 8 ? '.\n' : ' '}`;
  return s;
}

/** A realistic session: user turns, tool loops (1–3 calls), results of 50–2000 chars, replies. */
export function syntheticHistory(n: number, salt = 0): SyntheticMessage[] {
  const out: SyntheticMessage[] = [{ role: 'system', content: `You are nanobot.\n${sentence(salt, 200)}` }];
  let i = 0;
  let call = 0;
  while (out.length < n) {
    const s = salt * 100_003 + i++;
    const r = s % 10;
    if (r < 2) out.push({ role: 'user', content: `question ${s}: ${sentence(s, 20)}` });
    else if (r < 8) {
      const k = 1 + (s % 3);
      const ids = Array.from({ length: k }, () => `call_${salt}_${call++}`);
      out.push({ role: 'assistant', content: '', tool_calls: ids.map((id, j) => ({ id, type: 'function', function: { name: ['exec', 'read_file', 'grep'][j], arguments: `{"arg": "${s}"}` } })) });
      ids.forEach((id, j) => out.push({ role: 'tool', tool_call_id: id, name: ['exec', 'read_file', 'grep'][j], content: sentence(s + j, 10 + ((s * 31) % 300)) }));
    } else out.push({ role: 'assistant', content: `answer ${s}: ${sentence(s, 30)}` });
  }
  // As loaded from a session file: flat strings, fresh objects.
  return JSON.parse(JSON.stringify(out.slice(0, n))) as SyntheticMessage[];
}
