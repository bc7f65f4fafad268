import { link, readFile, stat, unlink, writeFile, readdir } from 'node:fs/promises';
import { hostname } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { SessionLockError } from './errors.js';
import { KeyedMutex } from './keyed-mutex.js';

/** How long to wait for a lock and when an abandoned one counts as stale. */
export interface FileLockOptions {
  /** Give up (SessionLockError) after this long. Default 10 000 ms. */
  timeoutMs?: number;
  /** A lock whose owner cannot be checked (other host, reused pid) is stale after this age. Default 10 000 ms. */
  staleMs?: number;
}

const HOST = hostname();
// One queue per lock path for the whole process: two stores on the same directory also take turns.
const processQueue = new KeyedMutex();

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function isErrno(error: unknown, code: string): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === code;
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return !isErrno(error, 'ESRCH');
  }
}

async function staleContent(lockPath: string, staleMs: number): Promise<string | null | 'gone'> {
  let content: string;
  let mtimeMs: number;
  try {
    content = await readFile(lockPath, 'utf8');
    mtimeMs = (await stat(lockPath)).mtimeMs;
  } catch (error) {
    if (isErrno(error, 'ENOENT')) return 'gone';
    throw error;
  }
  const [pidText, host] = content.split('\n');
  const pid = Number(pidText);
  if (host === HOST && Number.isInteger(pid) && pid > 0 && !pidAlive(pid)) return content;
  return Date.now() - mtimeMs > staleMs ? content : null;
}

// Breaking a stale lock by rename-and-put-back left a window in which two processes both held
// the lock (a third linked its lock while a live one was set aside). Breakers now take turns
// through a guard file and only remove the lock when it still holds the stale content they saw:
// lock contents carry a unique token, so a live lock is never mistaken for the stale one.
async function breakStaleLock(lockPath: string, observed: string, staleMs: number): Promise<boolean> {
  const guard = `${lockPath}.break`;
  try {
    await writeFile(guard, `${process.pid}\n${HOST}\nbreak`, { flag: 'wx' });
  } catch (error) {
    if (!isErrno(error, 'EEXIST')) throw error;
    // Another breaker is at work; a guard whose breaker died is removed so breaking can go on.
    const abandoned = await staleContent(guard, staleMs);
    if (abandoned !== null && abandoned !== 'gone') await unlink(guard).catch(() => undefined);
    return false;
  }
  try {
    const current = await readFile(lockPath, 'utf8').catch(() => null);
    if (current === observed) await unlink(lockPath).catch(() => undefined);
    return true;
  } finally {
    await unlink(guard).catch(() => undefined);
  }
}

/**
 * Takes an exclusive lock on `lockPath` for the duration of `fn` (awaited; may throw, the lock
 * is released either way). Within this process callers queue per path; across processes the
 * lock is a file created atomically with `link()` holding `<pid>\n<host>\n<token>`. A lock
 * whose owner process is dead (same host) is broken at once, so a crashed writer never blocks
 * the next one; a lock that cannot be checked is broken after `staleMs`. Local file systems only.
 */
export async function withFileLock<T>(lockPath: string, fn: () => Promise<T>, options: FileLockOptions = {}): Promise<T> {
  const { timeoutMs = 10_000, staleMs = 10_000 } = options;
  return processQueue.run(lockPath, async () => {
    const token = randomBytes(8).toString('hex');
    const content = `${process.pid}\n${HOST}\n${token}`;
    const temp = `${lockPath}.${token}.tmp`;
    const deadline = Date.now() + timeoutMs;
    await writeFile(temp, content, { flag: 'wx' });
    try {
      let delay = 2;
      for (;;) {
        try {
          await link(temp, lockPath);
          break;
        } catch (error) {
          if (!isErrno(error, 'EEXIST')) throw error;
        }
        const stale = await staleContent(lockPath, staleMs);
        if (stale === 'gone') continue;
        // Broken: try to take it at once; another breaker at work: wait like for a live lock.
        if (stale !== null && (await breakStaleLock(lockPath, stale, staleMs))) continue;
        if (Date.now() > deadline) {
          throw new SessionLockError(lockPath, `Timed out after ${timeoutMs} ms waiting for the lock ${lockPath}`);
        }
        await sleep(delay);
        delay = Math.min(delay * 2, 50);
      }
    } finally {
      await unlink(temp).catch(() => undefined);
    }
    try {
      return await fn();
    } finally {
      const current = await readFile(lockPath, 'utf8').catch(() => null);
      if (current === content) await unlink(lockPath).catch(() => undefined);
    }
  });
}

/** Removes lock temp/aside files left by processes that died between two steps of taking a lock. */
export async function removeAbandonedLockFiles(lockPath: string): Promise<void> {
  const dir = dirname(lockPath);
  const prefix = `${basename(lockPath)}.`;
  const names = await readdir(dir).catch(() => [] as string[]);
  for (const name of names) {
    if (!name.startsWith(prefix) || !(name.endsWith('.tmp') || name.endsWith('.stale') || name.endsWith('.break'))) continue;
    const full = join(dir, name);
    const text = await readFile(full, 'utf8').catch(() => null);
    if (text === null) continue;
    const [pidText, host] = text.split('\n');
    const pid = Number(pidText);
    if (host === HOST && Number.isInteger(pid) && pid !== process.pid && !pidAlive(pid)) await unlink(full).catch(() => undefined);
  }
}
