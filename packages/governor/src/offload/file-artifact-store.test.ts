import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ValidationError } from '@nanobot/schema';
import { FileArtifactStore } from './file-artifact-store.js';
import { MemoryArtifactStore } from './memory-artifact-store.js';
import { normalizeToolResult } from '../steps/size/normalize-tool-result.js';
import { govern } from '../govern.js';
import type { Message } from '@nanobot/schema';

let ws: string;
beforeEach(() => {
  ws = mkdtempSync(join(tmpdir(), 'nanobot-store-'));
});
afterEach(() => rmSync(ws, { recursive: true, force: true }));

const req = (toolCallId: string, body: string, sessionKey: string | null = 'cli:direct') => ({ sessionKey, toolCallId, body, extension: 'txt' as const });

describe('FileArtifactStore', () => {
  it('writes where the reference does and leaves no temp file', () => {
    const store = new FileArtifactStore({ workspace: ws });
    const path = store.persist(req('call_1', 'hello'));
    expect(path).toBe(join(ws, '.nanobot/tool-results/cli_direct/call_1.txt'));
    expect(readFileSync(path, 'utf8')).toBe('hello');
    expect(readdirSync(join(ws, '.nanobot/tool-results/cli_direct'))).toEqual(['call_1.txt']);
    expect(store.read(path)).toBe('hello');
    expect(store.read(join(ws, 'missing.txt'))).toBeUndefined();
  });

  it('never points a reused id at another result (stale-file fix)', () => {
    const store = new FileArtifactStore({ workspace: ws });
    const first = store.persist(req('call_1', 'old result'));
    const second = store.persist(req('call_1', 'new result'));
    expect(second).not.toBe(first);
    expect(second).toMatch(/call_1-[0-9a-f]{12}\.txt$/);
    expect(readFileSync(first, 'utf8')).toBe('old result');
    expect(readFileSync(second, 'utf8')).toBe('new result');
    // Both stay stable: the same body always maps to the same file.
    expect(store.persist(req('call_1', 'old result'))).toBe(first);
    expect(store.persist(req('call_1', 'new result'))).toBe(second);
    // A fresh store (new process) finds the same files.
    const again = new FileArtifactStore({ workspace: ws });
    expect(again.persist(req('call_1', 'new result'))).toBe(second);
    expect(readdirSync(join(ws, '.nanobot/tool-results/cli_direct')).sort()).toHaveLength(2);
  });

  it('deletes buckets older than 7 days and keeps at most 32', () => {
    const root = join(ws, '.nanobot/tool-results');
    const now = Date.now();
    const mk = (name: string, ageSeconds: number) => {
      mkdirSync(join(root, name), { recursive: true });
      writeFileSync(join(root, name, 'x.txt'), 'x');
      const t = (now - ageSeconds * 1000) / 1000;
      utimesSync(join(root, name), t, t);
    };
    mk('stale', 8 * 24 * 3600);
    for (let i = 0; i < 35; i++) mk(`b${String(i).padStart(2, '0')}`, 60 * (i + 1));
    new FileArtifactStore({ workspace: ws, now: () => now }).persist(req('c', 'body', 'current'));
    const left = readdirSync(root).sort();
    expect(left).toHaveLength(32);
    expect(left).toContain('current');
    expect(left).not.toContain('stale');
    expect(left).toContain('b00');
    expect(left).not.toContain('b31');
  });

  it('rejects a missing or empty workspace when constructed, not on the first offload', () => {
    for (const bad of [{}, { workspace: '' }, { workspace: 42 }, { workspace: ws, now: 5 }, null]) {
      expect(() => new FileArtifactStore(bad as never)).toThrow(ValidationError);
    }
  });

  it('throws on I/O failure so the governor can keep the result inline', () => {
    writeFileSync(join(ws, '.nanobot'), 'a file where a directory should be');
    expect(() => new FileArtifactStore({ workspace: ws }).persist(req('c', 'body'))).toThrow();
  });
});

describe('MemoryArtifactStore', () => {
  it('keeps distinct bodies of a reused id apart', () => {
    const store = new MemoryArtifactStore({ root: '/ws' });
    const a = store.persist(req('id', 'A', null));
    const b = store.persist(req('id', 'B', null));
    expect(a).toBe('/ws/.nanobot/tool-results/default/id.txt');
    expect(b).not.toBe(a);
    expect([store.read(a), store.read(b)]).toEqual(['A', 'B']);
    expect(store.entries().size).toBe(2);
  });

  it('names a reused id\'s second body by its SHA-256 prefix, as the file store does (no node:crypto)', () => {
    const memory = new MemoryArtifactStore({ root: ws });
    const files = new FileArtifactStore({ workspace: ws });
    for (const store of [memory, files]) store.persist(req('id', 'first'));
    const second = [memory.persist(req('id', 'second')), files.persist(req('id', 'second'))];
    expect(second[0]).toBe(second[1]);
    expect(second[0]).toBe(join(ws, '.nanobot/tool-results/cli_direct/id-16367aacb67a.txt'));
  });

  it('loses no body when another id already holds the hashed name: counts on', () => {
    const store = new MemoryArtifactStore({ root: '/ws' });
    store.persist(req('id', 'first', null));
    // The id `id-<hash of "second">` already holds other text under the name "second" would get.
    const squatter = store.persist(req('id-16367aacb67a', 'squatter', null));
    const second = store.persist(req('id', 'second', null));
    expect(second).toBe('/ws/.nanobot/tool-results/default/id-16367aacb67a-2.txt');
    expect([store.read(squatter), store.read(second)]).toEqual(['squatter', 'second']);
    expect(store.persist(req('id', 'second', null))).toBe(second);
  });
});

describe('normalizeToolResult', () => {
  it('is idempotent on its own offloaded reference', () => {
    const store = new MemoryArtifactStore();
    const opts = { maxToolResultChars: 600, artifactStore: store, sessionKey: 's' };
    const once = normalizeToolResult('c1', 'exec', 'w '.repeat(3000), opts) as string;
    expect(once.startsWith('[tool output persisted]\nFull output saved to: memory:/.nanobot/tool-results/s/c1.txt')).toBe(true);
    expect(normalizeToolResult('c1', 'exec', once, opts)).toBe(once);
    expect(store.entries().size).toBe(1);
  });

  it('writes a list of text blocks as pretty JSON and leaves image lists alone', () => {
    const store = new MemoryArtifactStore();
    const blocks = [{ type: 'text', text: 'a'.repeat(500) }, { type: 'text', text: 'b'.repeat(500) }];
    const out = normalizeToolResult('c2', 'grep', blocks, { maxToolResultChars: 400, artifactStore: store }) as string;
    expect(out).toContain('Original size: 1001 chars');
    expect(store.read('memory:/.nanobot/tool-results/default/c2.json')).toBe(JSON.stringify(blocks, null, 2));
    const images = [{ type: 'image_url', image_url: { url: 'data:x' } }, { type: 'text', text: 'c'.repeat(500) }];
    expect(normalizeToolResult('c3', 'grep', images, { maxToolResultChars: 60, artifactStore: store })).toBe(images);
  });
});

describe('an offloaded result governed again (warm memos)', () => {
  const history = (): Message[] => [
    { role: 'user', content: 'list it' },
    { role: 'assistant', content: null, tool_calls: [{ id: 'call_big', type: 'function', function: { name: 'exec', arguments: '{}' } }] },
    { role: 'tool', tool_call_id: 'call_big', name: 'exec', content: 'x'.repeat(5_000) },
    { role: 'user', content: 'and now?' },
  ];

  it('is saved again when its file was deleted since: the model is never pointed at a missing file', () => {
    const store = new FileArtifactStore({ workspace: ws });
    const h = history();
    const options = { artifactStore: store, sessionKey: 's1', maxToolResultChars: 1_000 };
    const first = govern(h, options);
    const location = first.report.steps.find((s) => s.step === 'applyToolResultBudget')!.toolResults[0].location!;
    expect(readFileSync(location, 'utf8')).toBe('x'.repeat(5_000));
    rmSync(location);
    const again = govern(h, options); // the same objects: every memo hits
    expect(JSON.stringify(again.messages)).toBe(JSON.stringify(first.messages));
    expect(readFileSync(location, 'utf8')).toBe('x'.repeat(5_000));
    // And once more with the history grown (the resumed part is saved again too).
    rmSync(location);
    govern([...h, { role: 'assistant', content: 'ok' }, { role: 'user', content: 'more' }], options);
    expect(readFileSync(location, 'utf8')).toBe('x'.repeat(5_000));
  });

  it('is re-rendered when the store answers with another location', () => {
    let suffix = 'a';
    const bodies = new Map<string, string>();
    const store = { persist: (r: { toolCallId: string; body: string }) => { const l = `mem:${r.toolCallId}-${suffix}`; bodies.set(l, r.body); return l; }, read: (l: string) => bodies.get(l) };
    const h = history();
    const options = { artifactStore: store, sessionKey: 's2', maxToolResultChars: 1_000 };
    expect(JSON.stringify(govern(h, options).messages)).toContain('mem:call_big-a');
    suffix = 'b';
    const again = govern(h, options);
    expect(JSON.stringify(again.messages)).toContain('mem:call_big-b');
    expect(JSON.stringify(again.messages)).not.toContain('mem:call_big-a');
  });
});
