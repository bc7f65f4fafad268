// File names on disk: readable names by default, the reference's base64url names on request,
// and a directory written by older versions (base64url or `:`→`_` names) read as it is.
import { copyFileSync, mkdtempSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { JsonlSessionStore, referenceSessionFileName, sessionFileName } from './index.js';

const fixture = join(import.meta.dirname, '..', 'test', 'fixtures', 'reference-session.jsonl');
let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'nb-names-'));
});

const files = (): string[] => readdirSync(dir).filter((n) => !n.endsWith('.lock')).sort();

function header(key: string): string {
  return JSON.stringify({ _type: 'metadata', key, created_at: '2026-01-01T00:00:00', updated_at: '2026-01-01T00:00:00', metadata: {}, last_consolidated: 0 });
}

function writeSession(name: string, key: string, text: string): void {
  writeFileSync(join(dir, name), `${header(key)}\n${JSON.stringify({ role: 'user', content: text })}\n`);
}

describe('readable file names', () => {
  it('a new session is stored under its key, and listed and loaded by it', async () => {
    const store = new JsonlSessionStore({ dir, fsync: 'never' });
    for (const key of ['cli:direct', 'Chat', 'chat', '日記']) {
      const { session } = await store.load(key);
      session.addMessage('user', `hello ${key}`);
      await store.save(session);
    }
    expect(files()).toEqual(['%e6%97%a5%e8%a8%98.jsonl', 'Chat~1.jsonl', 'chat.jsonl', 'cli%3adirect.jsonl']);
    expect(await store.list()).toEqual(['Chat', 'chat', 'cli:direct', '日記']);
    expect((await store.load('Chat')).session.messages[0].content).toBe('hello Chat');
    expect(store.pathFor('cli:direct')).toBe(join(dir, 'cli%3adirect.jsonl'));
  });

  it('a key too long for a file name gets a hashed name, listed through its metadata record', async () => {
    const store = new JsonlSessionStore({ dir, fsync: 'never' });
    const key = `thread:${'long-topic-'.repeat(40)}`;
    const { session } = await store.load(key);
    session.addMessage('user', 'long');
    await store.save(session);
    expect(files()).toHaveLength(1);
    expect(files()[0]).toMatch(/^thread%3along-topic-.*~~[0-9a-f]{32}\.jsonl$/);
    expect(await store.list()).toEqual([key]);
    expect((await store.load(key)).session.messages).toHaveLength(1);
  });

  it('fileNames: "reference" writes the base64url names the Python nanobot opens', async () => {
    const store = new JsonlSessionStore({ dir, fsync: 'never', fileNames: 'reference' });
    const { session } = await store.load('telegram:12345');
    session.addMessage('user', 'hi');
    await store.save(session);
    expect(files()).toEqual(['dGVsZWdyYW06MTIzNDU.jsonl']);
    expect(await store.list()).toEqual(['telegram:12345']);
  });
});

describe('a directory written by an older version', () => {
  it('is read without a migration: listed, loaded, nothing on disk renamed or rewritten', async () => {
    copyFileSync(fixture, join(dir, referenceSessionFileName('telegram:12345')));
    writeSession(referenceSessionFileName('cli:direct'), 'cli:direct', 'old base64 session');
    writeSession('slack_C1.jsonl', 'slack:C1', 'older legacy name');
    const before = files().map((n) => [n, readFileSync(join(dir, n), 'utf8'), statSync(join(dir, n)).mtimeMs]);
    const store = new JsonlSessionStore({ dir, fsync: 'never' });
    expect(await store.list()).toEqual(['cli:direct', 'slack:C1', 'telegram:12345']);
    expect((await store.load('telegram:12345')).session.messages).toHaveLength(8);
    expect((await store.load('cli:direct')).session.messages[0].content).toBe('old base64 session');
    expect((await store.load('slack:C1')).session.messages[0].content).toBe('older legacy name');
    expect(files().map((n) => [n, readFileSync(join(dir, n), 'utf8'), statSync(join(dir, n)).mtimeMs])).toEqual(before);
  });

  it('moves a session to its readable name when it is next saved, keeping every message', async () => {
    copyFileSync(fixture, join(dir, referenceSessionFileName('telegram:12345')));
    const store = new JsonlSessionStore({ dir, fsync: 'never' });
    const { session } = await store.load('telegram:12345');
    session.addMessage('user', 'again');
    await store.save(session);
    expect(files()).toEqual(['telegram%3a12345.jsonl']);
    const reloaded = await new JsonlSessionStore({ dir, fsync: 'never' }).load('telegram:12345');
    expect(reloaded.session.messages).toHaveLength(9);
    expect(reloaded.session.createdAt).toBe('2026-03-01T09:15:02.123456');
  });

  it('never takes another key’s file for an older name of this one, nor removes it', async () => {
    // `cli_direct.jsonl` is the legacy name of `cli:direct` and the readable name of `cli_direct`;
    // `ag.jsonl` is the base64url name of `j` and the readable name of `ag`.
    writeSession(sessionFileName('cli_direct'), 'cli_direct', 'underscore key');
    writeSession(sessionFileName('ag'), 'ag', 'two letters');
    const store = new JsonlSessionStore({ dir, fsync: 'never' });
    const colon = await store.load('cli:direct');
    expect(colon.created).toBe(true);
    const j = await store.load('j');
    expect(j.created).toBe(true);
    colon.session.addMessage('user', 'colon key');
    j.session.addMessage('user', 'j');
    await store.save(colon.session);
    await store.save(j.session);
    await store.compact(colon.session);
    expect(await store.delete('j')).toBe(true);
    expect(files()).toEqual(['ag.jsonl', 'cli%3adirect.jsonl', 'cli_direct.jsonl']);
    expect(await store.list()).toEqual(['ag', 'cli:direct', 'cli_direct']);
    expect((await store.load('cli_direct')).session.messages[0].content).toBe('underscore key');
    expect((await store.load('ag')).session.messages[0].content).toBe('two letters');
  });

  it('lists a base64url file whose name is also a readable name by the key its record holds', async () => {
    writeSession(referenceSessionFileName('j'), 'j', 'old j');
    const store = new JsonlSessionStore({ dir, fsync: 'never' });
    expect(await store.list()).toEqual(['j']);
    expect((await store.load('j')).session.messages[0].content).toBe('old j');
    // The key whose readable name it is moves it to j's own name when it first needs the name.
    const ag = await store.load('ag');
    expect(ag.created).toBe(true);
    ag.session.addMessage('user', 'ag');
    await store.save(ag.session);
    expect(files()).toEqual(['ag.jsonl', 'j.jsonl']);
    expect(await store.list()).toEqual(['ag', 'j']);
    expect((await store.load('j')).session.messages[0].content).toBe('old j');
    expect((await store.load('ag')).session.messages[0].content).toBe('ag');
  });
});

describe('locate', () => {
  it('names the file a session is read from: its own name, an older one, or none', async () => {
    writeSession(referenceSessionFileName('cli:direct'), 'cli:direct', 'old');
    writeSession(sessionFileName('ag'), 'ag', 'ag');
    const store = new JsonlSessionStore({ dir, fsync: 'never' });
    expect(await store.locate('cli:direct')).toBe(join(dir, referenceSessionFileName('cli:direct')));
    expect(await store.locate('ag')).toBe(join(dir, 'ag.jsonl'));
    expect(await store.locate('j')).toBeNull(); // ag.jsonl is its base64url name, but it is ag's file
    expect(await store.locate('nothing')).toBeNull();
  });
});
