import { mkdtempSync, readFileSync, writeFileSync, copyFileSync, readdirSync, appendFileSync, existsSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  JsonlSessionStore,
  Session,
  SessionConflictError,
  SessionStoreError,
  sessionFileName,
  sessionKeyFromFileName,
  type SessionWarning,
} from './index.js';
import { chat } from '../test/helpers.js';

const fixture = join(import.meta.dirname, '..', 'test', 'fixtures', 'reference-session.jsonl');
let dir: string;
let store: JsonlSessionStore;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'nb-sessions-'));
  store = new JsonlSessionStore({ dir, fsync: 'never' });
});
afterEach(() => undefined);

const read = (key: string): string => readFileSync(join(dir, sessionFileName(key)), 'utf8');
const lines = (key: string): any[] => read(key).trim().split('\n').map((l) => JSON.parse(l));

describe('file naming', () => {
  it('names the file after the key and round-trips it; reads the reference\'s base64url names too', () => {
    expect(sessionFileName('telegram:12345')).toBe('telegram%3a12345.jsonl');
    expect(sessionKeyFromFileName('telegram%3a12345.jsonl')).toBe('telegram:12345');
    expect(sessionKeyFromFileName('dGVsZWdyYW06MTIzNDU.jsonl')).toBe('telegram:12345');
    expect(sessionKeyFromFileName('notes.txt')).toBeNull();
  });
  it('rejects an empty key and a sessions dir inside the workspace', () => {
    expect(() => store.pathFor('')).toThrow(SessionStoreError);
    expect(() => new JsonlSessionStore({ dir: join(dir, 'ws', 'sessions'), workspace: join(dir, 'ws') })).toThrow(/inside the workspace/);
  });
});

describe('reference session files', () => {
  it('loads a session written in the reference format', async () => {
    copyFileSync(fixture, join(dir, 'dGVsZWdyYW06MTIzNDU.jsonl'));
    const { session, warnings, created } = await store.load('telegram:12345');
    expect(warnings).toEqual([]);
    expect(created).toBe(false);
    expect(session.messages).toHaveLength(8);
    expect(session.lastConsolidated).toBe(2);
    expect(session.createdAt).toBe('2026-03-01T09:15:02.123456');
    expect(session.metadata.workspace_scope).toBe('/home/u/proj');
    expect((session.providerState as { payload: unknown }).payload).toEqual({ previous_response_id: 'resp_abc' });
    const history = session.getHistory();
    expect(history.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'user', 'assistant']);
    expect(history[4].content).toContain('[image: /home/u/.nanobot/media/photo_1.jpg]');
    expect(history[1].reasoning_content).toBe('Need a search.');
  });

  it('loads a legacy-named file and moves it to the new name on the next save', async () => {
    copyFileSync(fixture, join(dir, 'telegram_12345.jsonl'));
    const { session } = await store.load('telegram:12345');
    expect(session.messages).toHaveLength(8);
    session.addMessage('user', 'again');
    await store.save(session);
    expect(existsSync(join(dir, 'telegram_12345.jsonl'))).toBe(false);
    expect((await store.load('telegram:12345')).session.messages).toHaveLength(9);
  });

  it('writes the canonical layout on first save: metadata, provider state, messages', async () => {
    const { session } = await store.load('cli:direct');
    session.providerState = { kind: 'k' };
    session.addMessage('user', 'hi');
    await store.save(session);
    const [header, provider, message] = lines('cli:direct');
    expect(Object.keys(header)).toEqual(['_type', 'key', 'created_at', 'updated_at', 'metadata', 'last_consolidated']);
    expect(header).toMatchObject({ _type: 'metadata', key: 'cli:direct', last_consolidated: 0 });
    expect(provider).toEqual({ _type: 'provider_state', state: { kind: 'k' } });
    expect(message).toMatchObject({ role: 'user', content: 'hi' });
  });
});

describe('append-only saves', () => {
  it('appends new messages without rewriting what is on disk', async () => {
    const { session } = await store.load('k');
    for (const m of chat(3)) session.messages.push(m);
    await store.save(session);
    const before = read('k');
    session.addMessage('user', 'next');
    await store.save(session);
    const after = read('k');
    const headerEnd = before.indexOf('\n');
    // Only the first line (the metadata record, same length) is updated in place; the rest grows.
    expect(after.indexOf('\n')).toBe(headerEnd);
    expect(after.slice(headerEnd).startsWith(before.slice(headerEnd))).toBe(true);
    expect(after.slice(before.length).trim().split('\n')).toHaveLength(1);
  });

  it('updates the one metadata record (first line) in place when metadata or the pointer changes', async () => {
    const { session } = await store.load('k');
    session.messages.push(...chat(3));
    await store.save(session);
    const before = read('k');
    session.metadata = { mode: 'x' };
    session.lastConsolidated = 4;
    await store.save(session);
    const headerEnd = before.indexOf('\n');
    expect(read('k').slice(headerEnd)).toBe(before.slice(headerEnd));
    expect(lines('k').filter((r) => r._type === 'metadata')).toEqual([expect.objectContaining({ metadata: { mode: 'x' }, last_consolidated: 4 })]);
    const reloaded = (await store.load('k')).session;
    expect(reloaded.metadata).toEqual({ mode: 'x' });
    expect(reloaded.lastConsolidated).toBe(4);
    expect(reloaded.messages).toHaveLength(6);
  });

  it('a save with no changes writes nothing', async () => {
    const { session } = await store.load('k');
    session.addMessage('user', 'a');
    await store.save(session);
    const before = read('k');
    await store.save(session);
    expect(read('k')).toBe(before);
  });

  it('rewrites atomically when messages are removed, and compaction restores the canonical layout', async () => {
    const { session } = await store.load('k');
    session.messages.push(...chat(5));
    await store.save(session);
    session.metadata = { a: 1 };
    await store.save(session);
    session.retainRecentLegalSuffix(2);
    await store.save(session);
    const recs = lines('k');
    expect(recs).toHaveLength(3);
    expect(recs[0]).toMatchObject({ _type: 'metadata', metadata: { a: 1 } });
    expect(readdirSync(dir).filter((n) => n.endsWith('.tmp'))).toEqual([]);
    session.metadata = { a: 2 };
    await store.save(session);
    expect(lines('k')).toHaveLength(3); // in place: still one metadata record
    await store.compact(session);
    expect(lines('k')).toHaveLength(3);
    expect(lines('k')[0].metadata).toEqual({ a: 2 });
  });

  it('replaceMessages makes the next save rewrite the file', async () => {
    const { session } = await store.load('k');
    session.messages.push(...chat(3));
    await store.save(session);
    session.replaceMessages([{ role: 'user', content: 'edited' }, ...session.messages.slice(1)]);
    await store.save(session);
    expect((await store.load('k')).session.messages.map((m) => m.content)).toEqual(['edited', 'a0', 'u1', 'a1', 'u2', 'a2']);
  });

  it('compacts automatically once superseded metadata records pile up', async () => {
    const small = new JsonlSessionStore({ dir, fsync: 'never', compactAfterBytes: 500 });
    const { session } = await small.load('k');
    session.addMessage('user', 'x');
    await small.save(session);
    for (let i = 0; i < 40; i += 1) {
      session.metadata = { step: i, pad: 'p'.repeat(50) };
      await small.save(session);
    }
    expect(read('k').length).toBeLessThan(2000);
    expect((await small.load('k')).session.metadata).toEqual({ step: 39, pad: 'p'.repeat(50) });
  });

  it('serialises concurrent saves of one session inside a process', async () => {
    const { session } = await store.load('k');
    const saves: Promise<void>[] = [];
    for (let i = 0; i < 50; i += 1) {
      session.addMessage('user', `m${i}`);
      saves.push(store.save(session));
    }
    await Promise.all(saves);
    const reloaded = (await store.load('k')).session;
    expect(reloaded.messages.map((m) => m.content)).toEqual(Array.from({ length: 50 }, (_, i) => `m${i}`));
  });

  it('two stores (two writers) appending to one session never interleave lines', async () => {
    const other = new JsonlSessionStore({ dir, fsync: 'never' });
    const a = (await store.load('k')).session;
    a.addMessage('user', 'seed');
    await store.save(a);
    const b = (await other.load('k')).session;
    const jobs: Promise<void>[] = [];
    for (let i = 0; i < 30; i += 1) {
      a.addMessage('user', `a${i}`);
      b.addMessage('user', `b${i}`);
      jobs.push(store.save(a), other.save(b));
    }
    await Promise.all(jobs);
    const { session, warnings } = await store.load('k');
    expect(warnings).toEqual([]);
    expect(session.messages).toHaveLength(61);
  });

  it('refuses a rewrite that would drop another writer’s messages', async () => {
    const other = new JsonlSessionStore({ dir, fsync: 'never' });
    const a = (await store.load('k')).session;
    a.messages.push(...chat(2));
    await store.save(a);
    const b = (await other.load('k')).session;
    b.addMessage('user', 'from b');
    await other.save(b);
    a.clear();
    await expect(store.save(a)).rejects.toBeInstanceOf(SessionConflictError);
    expect((await store.load('k')).session.messages.at(-1)?.content).toBe('from b');
  });

  it('refuses to overwrite a stored session with a session object it never loaded', async () => {
    const { session } = await store.load('k');
    session.addMessage('user', 'x');
    await store.save(session);
    await expect(store.save(new Session({ key: 'k' }))).rejects.toBeInstanceOf(SessionConflictError);
  });

  it('lists and deletes sessions', async () => {
    for (const key of ['b:1', 'a:2']) {
      const { session } = await store.load(key);
      session.addMessage('user', 'x');
      await store.save(session);
    }
    expect(await store.list()).toEqual(['a:2', 'b:1']);
    expect(await store.delete('a:2')).toBe(true);
    expect(await store.delete('a:2')).toBe(false);
    expect(await store.list()).toEqual(['b:1']);
  });

  it('fsyncs with the default policy (smoke: data round-trips)', async () => {
    const durable = new JsonlSessionStore({ dir });
    const { session } = await durable.load('k');
    session.addMessage('user', 'x');
    await durable.save(session);
    session.addMessage('assistant', 'y');
    await durable.save(session);
    expect((await durable.load('k')).session.messages).toHaveLength(2);
  });
});

describe('corrupt and truncated lines', () => {
  const header = JSON.stringify({ _type: 'metadata', key: 'k', created_at: 'c', updated_at: 'u', metadata: {}, last_consolidated: 0 });
  const msg = (content: string) => JSON.stringify({ role: 'user', content });

  it('skips a corrupt middle line with a warning and keeps everything else', async () => {
    writeFileSync(join(dir, sessionFileName('k')), [header, msg('one'), '{"role": "user", "cont', msg('three')].join('\n') + '\n');
    const seen: SessionWarning[] = [];
    const s = new JsonlSessionStore({ dir, fsync: 'never', onWarning: (_k, w) => seen.push(w) });
    const { session, warnings } = await s.load('k');
    expect(session.messages.map((m) => m.content)).toEqual(['one', 'three']);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ kind: 'corrupt-line', line: 3, raw: '{"role": "user", "cont' });
    expect(seen).toEqual(warnings);
  });

  it('skips a torn last line (power loss mid-write) and the next append starts on a fresh line', async () => {
    writeFileSync(join(dir, sessionFileName('k')), [header, msg('one'), '{"role": "assistant", "content": "par'].join('\n'));
    const { session, warnings } = await store.load('k');
    expect(warnings.map((w) => w.kind)).toEqual(['truncated-line']);
    session.addMessage('user', 'after');
    await store.save(session);
    const again = await store.load('k');
    expect(again.session.messages.map((m) => m.content)).toEqual(['one', 'after']);
    // The grown header did not fit the old first line, so the file was rewritten: the torn
    // line is kept aside in .corrupt instead of in the file.
    expect(again.warnings).toEqual([]);
    expect(readFileSync(join(dir, `${sessionFileName('k')}.corrupt`), 'utf8')).toBe('{"role": "assistant", "content": "par\n');
  });

  it('reports non-object lines, role-less records and a missing header', async () => {
    writeFileSync(join(dir, sessionFileName('k')), ['[1,2]', '{"content": "no role"}', msg('ok'), '"str"'].join('\n') + '\n');
    const { session, warnings } = await store.load('k');
    expect(session.messages.map((m) => m.content)).toEqual(['ok']);
    expect(warnings.map((w) => w.kind)).toEqual(['invalid-record', 'invalid-record', 'invalid-record', 'missing-header']);
  });

  it('keeps skipped lines in <file>.corrupt when the file is rewritten', async () => {
    const file = join(dir, sessionFileName('k'));
    writeFileSync(file, [header, msg('one'), 'garbage{', msg('two')].join('\n') + '\n');
    const { session } = await store.load('k');
    await store.compact(session);
    expect(readFileSync(`${file}.corrupt`, 'utf8')).toBe('garbage{\n');
    const again = await store.load('k');
    expect(again.warnings).toEqual([]);
    expect(again.session.messages).toHaveLength(2);
  });

  it('a corrupt header does not lose the messages', async () => {
    writeFileSync(join(dir, sessionFileName('k')), ['{"_type": "metad', msg('one')].join('\n') + '\n');
    const { session, warnings } = await store.load('k');
    expect(session.messages.map((m) => m.content)).toEqual(['one']);
    expect(warnings.map((w) => w.kind)).toEqual(['corrupt-line', 'missing-header']);
  });

  it('an invalid last_consolidated in the file is reset to 0', async () => {
    const bad = JSON.stringify({ _type: 'metadata', key: 'k', created_at: 'c', updated_at: 'u', metadata: {}, last_consolidated: 99 });
    writeFileSync(join(dir, sessionFileName('k')), [bad, msg('one')].join('\n') + '\n');
    expect((await store.load('k')).session.lastConsolidated).toBe(0);
  });

  it('keeps lines appended by a stale writer after a torn tail readable', async () => {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, sessionFileName('k')), header + '\n' + msg('one') + '\n');
    appendFileSync(join(dir, sessionFileName('k')), '{"role":"user","content":"tor');
    const { session } = await store.load('k');
    session.addMessage('user', 'two');
    session.addMessage('user', 'three');
    await store.save(session);
    expect((await store.load('k')).session.messages.map((m) => m.content)).toEqual(['one', 'two', 'three']);
  });
});
