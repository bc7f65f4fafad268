// A stored session with what governance exists for: a failed request stored the old way (a
// placeholder reply, replayed as nanobot's note), an orphan result, a
// malformed call, a call whose result was lost, an oversized result, old turns to snip and a
// latest turn whose tool results overflow a small budget.
import { writeFileSync } from 'node:fs';
import type { Message } from '@nanobot/schema';

const filler = (word: string, n: number) => Array.from({ length: n }, (_, i) => `${word} ${i}`).join(' ');

/** The fixture's messages (stored shape: OpenAI chat messages with nanobot's extra fields). */
export function governanceFixtureMessages(): Message[] {
  const call = (id: string, name: string, args: Record<string, unknown>) => ({ id, type: 'function' as const, function: { name, arguments: JSON.stringify(args) } });
  const turn = (i: number): Message[] => [
    { role: 'user', content: `old question ${i}: ${filler('context', 300)}` },
    { role: 'assistant', content: `old answer ${i}: ${filler('detail', 300)}` },
  ];
  return [
    // Forgotten before the governor runs: history replay starts after the orphan result below.
    ...turn(0),
    { role: 'user', content: 'what happened to the ghost?' },
    { role: 'tool', tool_call_id: 'ghost_1', name: 'read_file', content: 'a result nobody asked for' },
    // Replayed, then snipped when the budget is small.
    ...Array.from({ length: 10 }, (_, i) => turn(i + 1)).flat(),
    { role: 'user', content: 'say hi' },
    { role: 'assistant', content: '[Previous assistant message omitted.]' },
    { role: 'user', content: 'list the folder' },
    { role: 'assistant', content: 'Checking.', tool_calls: [call('lost_1', 'list_dir', { path: '.' })] },
    { role: 'user', content: 'show me the big log' },
    { role: 'assistant', content: null, tool_calls: [call('big_1', 'exec', { command: 'cat big.log' })] },
    { role: 'tool', tool_call_id: 'big_1', name: 'exec', content: `BIG-LOG-START ${filler('logline', 4000)}` },
    { role: 'assistant', content: 'That log is large.', tool_calls: [{ id: 'bad_1', type: 'function', function: { name: '', arguments: '{}' } }] },
    { role: 'tool', tool_call_id: 'bad_1', name: 'unknown', content: 'result of a call without a name' },
    { role: 'assistant', content: 'The log is mostly log lines.' },
    { role: 'user', content: 'read the three reports' },
    {
      role: 'assistant',
      content: null,
      tool_calls: [call('rep_1', 'read_file', { path: 'r1.txt' }), call('rep_2', 'read_file', { path: 'r2.txt' }), call('rep_3', 'read_file', { path: 'r3.txt' })],
    },
    { role: 'tool', tool_call_id: 'rep_1', name: 'read_file', content: `REPORT-ONE ${filler('alpha', 1500)}` },
    { role: 'tool', tool_call_id: 'rep_2', name: 'read_file', content: `REPORT-TWO ${filler('beta', 1500)}` },
    { role: 'tool', tool_call_id: 'rep_3', name: 'read_file', content: `REPORT-THREE ${filler('gamma', 1500)}` },
    // The latest turn stopped here (the process was killed before the model answered): it is
    // still in flight; the next request compacts its older results first and keeps the step the
    // model waits on (issue 29: the newest results are shortened, never compacted).
    { role: 'assistant', content: null, tool_calls: [call('ls_1', 'list_dir', { path: '.' })] },
    { role: 'tool', tool_call_id: 'ls_1', name: 'list_dir', content: 'r1.txt\nr2.txt\nr3.txt' },
  ] as Message[];
}

/** Writes the fixture as a nanobot JSONL session file (metadata record first). */
export function writeGovernanceFixture(path: string, key = 'fixture'): string {
  const header = { _type: 'metadata', key, created_at: '2026-01-01T00:00:00', updated_at: '2026-01-01T00:00:00', metadata: {}, last_consolidated: 0 };
  const text = [header, ...governanceFixtureMessages()].map((r) => JSON.stringify(r)).join('\n') + '\n';
  writeFileSync(path, text);
  return text;
}
