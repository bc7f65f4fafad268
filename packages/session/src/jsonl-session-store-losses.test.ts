// The four ways issue 20 found to lose or wedge data in the JSONL store, each reproduced.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { JsonlSessionStore, SessionConflictError, SessionWriteError, sessionFileName } from './index.js';
import { faultyFs, type Faults } from '../test/faulty-fs.js';

let dir: string;
const file = (key: string) => join(dir, sessionFileName(key));
const contents = async (store: JsonlSessionStore, key: string) => (await store.load(key)).session.messages.map((m) => m.content);

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'nb-losses-'));
});

describe('1. a rewrite never drops another writer’s lines', () => {
  async function twoWriters() {
    const a = new JsonlSessionStore({ dir, fsync: 'never' });
    const b = new JsonlSessionStore({ dir, fsync: 'never' });
    const sa = (await a.load('k')).session;
    sa.addMessage('user', 'seed');
    await a.save(sa);
    const sb = (await b.load('k')).session;
    sa.addMessage('user', 'from A'); // acknowledged
    await a.save(sa);
    sb.addMessage('user', 'from B'); // B appends after A; B never read A's line
    await b.save(sb);
    return { a, b, sa, sb };
  }

  it('compact() after appending past another writer refuses instead of dropping its message', async () => {
    const { b, sb } = await twoWriters();
    await expect(b.compact(sb)).rejects.toBeInstanceOf(SessionConflictError);
    expect(await contents(b, 'k')).toEqual(['seed', 'from A', 'from B']);
  });

  it('clear() + save() refuses too, and works after a reload', async () => {
    const { b, sb } = await twoWriters();
    sb.clear();
    await expect(b.save(sb)).rejects.toBeInstanceOf(SessionConflictError);
    expect(await contents(b, 'k')).toEqual(['seed', 'from A', 'from B']);
    const fresh = (await b.load('k')).session;
    fresh.clear();
    await b.save(fresh);
    expect(await contents(b, 'k')).toEqual([]);
  });

  it('a metadata change that needs a rewrite refuses, one that fits in place keeps both writers’ lines', async () => {
    const { b, sb } = await twoWriters();
    sb.metadata = { title: 'x'.repeat(5000) }; // outgrows the header's room: would be a rewrite
    await expect(b.save(sb)).rejects.toBeInstanceOf(SessionConflictError);
    sb.metadata = { title: 'short' };
    await b.save(sb);
    const { session } = await b.load('k');
    expect(session.messages.map((m) => m.content)).toEqual(['seed', 'from A', 'from B']);
    expect(session.metadata).toEqual({ title: 'short' });
  });

  it('a file replaced by one of the same size (another rewrite) is noticed by the tail hash', async () => {
    const a = new JsonlSessionStore({ dir, fsync: 'never' });
    const s = (await a.load('k')).session;
    s.addMessage('user', 'aaaa');
    await a.save(s);
    const text = readFileSync(file('k'), 'utf8');
    writeFileSync(file('k'), text.replace('"aaaa"', '"bbbb"'));
    s.clear();
    await expect(a.save(s)).rejects.toBeInstanceOf(SessionConflictError);
    expect(await contents(a, 'k')).toEqual(['bbbb']);
  });

  it('a second process appending in between makes the rewrite refuse (real two processes)', async () => {
    const script = join(dir, 'append-child.mjs');
    await build({
      entryPoints: [join(import.meta.dirname, '..', 'test', 'append-child.ts')],
      outfile: script,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      conditions: ['source'],
      logLevel: 'silent',
    });
    const store = new JsonlSessionStore({ dir, fsync: 'never' });
    const s = (await store.load('k')).session;
    s.addMessage('user', 'mine 1');
    await store.save(s);
    const code = await new Promise<number | null>((resolve) => {
      const child = spawn(process.execPath, [script, dir, 'k', 'from the other process'], { stdio: 'inherit' });
      child.on('exit', resolve);
    });
    expect(code).toBe(0);
    s.addMessage('user', 'mine 2');
    await store.save(s);
    await expect(store.compact(s)).rejects.toBeInstanceOf(SessionConflictError);
    expect(await contents(store, 'k')).toEqual(['mine 1', 'from the other process', 'mine 2']);
  }, 60_000);
});

describe('2. a full disk never loses an acknowledged message (injected file system)', () => {
  const faults: Faults = { spaceLeft: Infinity, syncEio: false, zeroWrites: false };
  beforeEach(() => Object.assign(faults, { spaceLeft: Infinity, syncEio: false, zeroWrites: false, tearNextHeaderWrite: false }));

  async function seeded(fsync: 'always' | 'never' = 'never') {
    const store = new JsonlSessionStore({ dir, fsync, fs: faultyFs(faults) });
    const { session } = await store.load('k');
    session.addMessage('user', 'acknowledged');
    await store.save(session);
    return { store, session, before: readFileSync(file('k')) };
  }

  it('ENOSPC mid-append: typed error, the file is cut back, the message is not acknowledged', async () => {
    const { store, session, before } = await seeded();
    session.addMessage('assistant', 'x'.repeat(300));
    faults.spaceLeft = 40; // a short write of 40 bytes, then ENOSPC
    const error = await store.save(session).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SessionWriteError);
    expect(error).toMatchObject({ code: 'SESSION_DISK_FULL', rolledBack: true });
    expect(readFileSync(file('k')).equals(before)).toBe(true);
    const reloaded = await new JsonlSessionStore({ dir, fsync: 'never' }).load('k');
    expect(reloaded.warnings).toEqual([]);
    expect(reloaded.session.messages.map((m) => m.content)).toEqual(['acknowledged']);
    faults.spaceLeft = Infinity; // space again: the same session object saves the message once
    await store.save(session);
    expect(await contents(store, 'k')).toEqual(['acknowledged', 'x'.repeat(300)]);
  });

  it('EIO tearing the in-place header write after the append rolls back both', async () => {
    const { store, session, before } = await seeded();
    session.addMessage('assistant', 'y');
    session.metadata = { title: 'new title' };
    faults.tearNextHeaderWrite = true; // the append succeeds, half the header is written, then EIO
    await expect(store.save(session)).rejects.toMatchObject({ code: 'SESSION_IO_ERROR', rolledBack: true });
    expect(readFileSync(file('k')).equals(before)).toBe(true);
    await store.save(session);
    const { session: reloaded } = await store.load('k');
    expect([reloaded.metadata, reloaded.messages.length]).toEqual([{ title: 'new title' }, 2]);
  });

  it('EIO on fsync: SESSION_IO_ERROR and nothing kept', async () => {
    const { store, session, before } = await seeded('always');
    session.addMessage('assistant', 'z');
    faults.syncEio = true;
    await expect(store.save(session)).rejects.toMatchObject({ code: 'SESSION_IO_ERROR' });
    expect(readFileSync(file('k')).equals(before)).toBe(true);
  });

  it('a write that makes no progress is a short write, not an acknowledgement', async () => {
    const { store, session, before } = await seeded();
    session.addMessage('assistant', 'w');
    faults.zeroWrites = true;
    await expect(store.save(session)).rejects.toMatchObject({ code: 'SESSION_SHORT_WRITE' });
    expect(readFileSync(file('k')).equals(before)).toBe(true);
  });

  it('ENOSPC during a rewrite leaves the old file and no temp file', async () => {
    const { store, session, before } = await seeded();
    session.clear();
    session.addMessage('user', 'after /new');
    faults.spaceLeft = 20;
    await expect(store.save(session)).rejects.toMatchObject({ code: 'SESSION_DISK_FULL' });
    expect(readFileSync(file('k')).equals(before)).toBe(true);
    expect(readdirSync(dir).filter((n) => n.endsWith('.tmp'))).toEqual([]);
    faults.spaceLeft = Infinity;
    await store.save(session);
    expect(await contents(store, 'k')).toEqual(['after /new']);
  });
});

// A real 1 MiB tmpfs when this process may mount one (root on Linux); the filler file leaves a
// few pages free, so the kernel's own short write and ENOSPC hit our append.
describe('2b. a full disk on a real 1 MiB tmpfs', () => {
  const mountPoint = join(tmpdir(), `nb-tmpfs-${process.pid}`);
  let mounted = false;
  beforeAll(() => {
    if (process.platform !== 'linux' || process.getuid?.() !== 0) return;
    mkdirSync(mountPoint, { recursive: true });
    mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', mountPoint]).status === 0;
  });
  afterAll(() => {
    if (mounted) spawnSync('umount', [mountPoint]);
    rmSync(mountPoint, { recursive: true, force: true });
  });

  it('every acknowledged message reloads whole; the failing one is neither torn nor kept', async () => {
    // Without a mountable tmpfs the same scenario runs on the injected full disk.
    const faults: Faults = { spaceLeft: 64 * 1024, syncEio: false, zeroWrites: false };
    const sessions = mounted ? join(mountPoint, 'sessions') : dir;
    if (mounted) {
      mkdirSync(sessions);
      writeFileSync(join(mountPoint, 'filler'), Buffer.alloc(1024 * 1024 - 64 * 1024));
    }
    const store = new JsonlSessionStore({ dir: sessions, fsync: 'always', fs: mounted ? undefined : faultyFs(faults) });
    const { session } = await store.load('disk:full');
    const acked: string[] = [];
    let failure: unknown = null;
    for (let i = 0; i < 200 && failure === null; i += 1) {
      const text = `${i}:${'m'.repeat(1500)}`;
      session.addMessage('user', text);
      try {
        await store.save(session);
        acked.push(text);
      } catch (error) {
        failure = error;
        session.messages.pop(); // not acknowledged: the caller drops or retries it
      }
    }
    expect(failure).toBeInstanceOf(SessionWriteError);
    expect(failure).toMatchObject({ code: 'SESSION_DISK_FULL', rolledBack: true });
    expect(acked.length).toBeGreaterThan(10);
    const reloaded = await new JsonlSessionStore({ dir: sessions, fsync: 'never' }).load('disk:full');
    expect(reloaded.warnings).toEqual([]);
    expect(reloaded.session.messages.map((m) => m.content)).toEqual(acked);
    if (mounted) rmSync(join(mountPoint, 'filler'));
    faults.spaceLeft = Infinity;
    session.addMessage('user', 'after space was freed');
    await store.save(session);
    expect((await store.load('disk:full')).session.messages).toHaveLength(acked.length + 1);
  });
});

describe('4. invalid UTF-8 is kept byte-exact and the session stays rewritable', () => {
  const header = JSON.stringify({ _type: 'metadata', key: 'k', created_at: '2026-01-01T00:00:00', updated_at: '2026-01-01T00:00:00', metadata: {}, last_consolidated: 0 });
  const bad = Buffer.concat([Buffer.from('{"role": "user", "content": "caf'), Buffer.from([0xe9]), Buffer.from(' au lait"}')]);
  const write = () => {
    mkdirSync(dir, { recursive: true });
    writeFileSync(file('k'), Buffer.concat([Buffer.from(header + '\n'), bad, Buffer.from('\n{"role": "assistant", "content": "ok"}\n')]));
  };

  it('loads with a warning, U+FFFD in memory, and clear() + save() (what /new does) works', async () => {
    write();
    const store = new JsonlSessionStore({ dir, fsync: 'never' });
    const { session, warnings } = await store.load('k');
    expect(warnings.map((w) => [w.kind, w.line])).toEqual([['invalid-utf8', 2]]);
    expect(session.messages[0].content).toBe('caf\uFFFD au lait');
    session.clear();
    await store.save(session);
    expect(await contents(store, 'k')).toEqual([]);
  });

  it('a rewrite writes the original bytes of an unchanged line back', async () => {
    write();
    const store = new JsonlSessionStore({ dir, fsync: 'never' });
    const { session } = await store.load('k');
    session.addMessage('user', 'more');
    await store.save(session);
    await store.compact(session);
    const bytes = readFileSync(file('k'));
    expect(bytes.includes(bad)).toBe(true);
    expect(existsSync(`${file('k')}.corrupt`)).toBe(false);
    expect(await contents(store, 'k')).toEqual(['caf\uFFFD au lait', 'ok', 'more']);
  });
});
