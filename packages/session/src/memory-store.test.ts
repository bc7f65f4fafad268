import { mkdtempSync, readFileSync, writeFileSync, mkdirSync, appendFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { MemoryStore } from './index.js';

let ws: string;
let memory: MemoryStore;
const fixed = () => new Date(2026, 2, 1, 9, 5, 30);

beforeEach(() => {
  ws = mkdtempSync(join(tmpdir(), 'nb-mem-'));
  memory = new MemoryStore({ workspace: ws, now: fixed });
});

const historyLines = () => readFileSync(join(ws, 'memory', 'history.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));

describe('MemoryStore', () => {
  it('appends entries with increasing cursors, local minute timestamps and session keys', async () => {
    expect(await memory.appendHistory('first  \n', { sessionKey: 'cli:direct' })).toBe(1);
    expect(await memory.appendHistory('second')).toBe(2);
    expect(historyLines()).toEqual([
      { cursor: 1, timestamp: '2026-03-01 09:05', content: 'first', session_key: 'cli:direct' },
      { cursor: 2, timestamp: '2026-03-01 09:05', content: 'second' },
    ]);
    expect(readFileSync(join(ws, 'memory', '.cursor'), 'utf8')).toBe('2');
  });

  it('allocates past both the .cursor counter and the last entry', async () => {
    mkdirSync(join(ws, 'memory'), { recursive: true });
    writeFileSync(join(ws, 'memory', '.cursor'), '10');
    expect(await memory.appendHistory('a')).toBe(11);
    appendFileSync(join(ws, 'memory', 'history.jsonl'), JSON.stringify({ cursor: 40, timestamp: 't', content: 'hand' }) + '\n');
    expect(await memory.appendHistory('b')).toBe(41);
  });

  it('scans the whole file when the tail is torn, and starts the next entry on a fresh line', async () => {
    await memory.appendHistory('a');
    appendFileSync(join(ws, 'memory', 'history.jsonl'), JSON.stringify({ cursor: 7, timestamp: 't', content: 'x' }) + '\n{"cursor": 99, "timest');
    writeFileSync(join(ws, 'memory', '.cursor'), '1');
    expect(await memory.appendHistory('b')).toBe(8);
    const { entries, warnings } = await memory.readHistory();
    expect(entries.map((e) => e.cursor)).toEqual([1, 7, 8]);
    expect(warnings).toHaveLength(1);
  });

  it('concurrent appends never reuse a cursor', async () => {
    const other = new MemoryStore({ workspace: ws });
    const cursors = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? memory : other).appendHistory(`e${i}`)));
    expect([...cursors].sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
  });

  it('removes leaked think tags; a leak-only entry is stored empty', async () => {
    await memory.appendHistory('<think>secret</think>- [durable] fact');
    await memory.appendHistory('<think>only thinking');
    await memory.appendHistory('<thought>plan</thought>- kept');
    expect(historyLines().map((e) => e.content)).toEqual(['- [durable] fact', '', '- kept']);
  });

  it('truncates entries longer than maxChars', async () => {
    await memory.appendHistory('x'.repeat(100), { maxChars: 10 });
    expect(historyLines()[0].content).toBe('xxxxxxxxxx\n... (truncated)');
  });

  it('tolerant reader reports malformed lines and Dream filtering uses .dream_cursor', async () => {
    await memory.appendHistory('one');
    appendFileSync(join(ws, 'memory', 'history.jsonl'), '{"cursor": "2", "timestamp": "t", "content": "bad"}\n');
    await memory.appendHistory('three');
    const seen: number[] = [];
    const reader = new MemoryStore({ workspace: ws, onWarning: (w) => seen.push(w.length) });
    expect((await reader.readHistory()).entries.map((e) => e.content)).toEqual(['one', 'three']);
    expect(seen).toEqual([1]);
    await reader.setDreamCursor(1);
    expect(await reader.getDreamCursor()).toBe(1);
    expect((await reader.readUnprocessedHistory()).map((e) => e.content)).toEqual(['three']);
  });

  it('raw archive lists messages with roles, tools and breadcrumbs, without runtime context', async () => {
    const suffix = 'CTX';
    await memory.rawArchive(
      [
        { role: 'user', content: `hello\n\n${suffix}`, timestamp: '2026-03-01T09:00:12.000000', media: ['/p.png'], _runtime_context: { version: 1, sources: ['s'], suffix } },
        { role: 'assistant', content: 'calling', timestamp: '2026-03-01T09:00:13.000000', tool_calls: [{ id: 'c', type: 'function', function: { name: 'exec', arguments: '{}' } }, { id: 'd', type: 'function', function: { name: 'grep', arguments: '{}' } }] },
        { role: 'tool', content: '', tool_call_id: 'c', timestamp: '2026-03-01T09:00:14.000000' },
        { role: 'assistant', content: [{ type: 'text', text: 'done' }], timestamp: '2026-03-01T09:00:15.000000' },
      ],
      'cli:direct',
    );
    expect(historyLines()[0]).toEqual({
      cursor: 1,
      timestamp: '2026-03-01 09:05',
      session_key: 'cli:direct',
      content:
        '[RAW] 4 messages\n' +
        '[2026-03-01T09:00] USER: hello\n[image: /p.png]\n' +
        '[2026-03-01T09:00] ASSISTANT [tools: exec, grep]: calling\n' +
        '[2026-03-01T09:00] ASSISTANT: done',
    });
  });

  it('compactHistory keeps at most N entries but never drops unprocessed ones', async () => {
    for (let i = 0; i < 10; i += 1) await memory.appendHistory(`e${i + 1}`);
    await memory.setDreamCursor(3);
    expect(await memory.compactHistory(5)).toBe(3);
    expect((await memory.readHistory()).entries.map((e) => e.cursor)).toEqual([4, 5, 6, 7, 8, 9, 10]);
    expect(await memory.appendHistory('next')).toBe(11);
  });

  it('reads and writes MEMORY.md', async () => {
    expect(await memory.readMemory()).toBe('');
    await memory.writeMemory('# facts');
    expect(await memory.readMemory()).toBe('# facts');
  });
});
