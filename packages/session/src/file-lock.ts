import { link, readFile, rename, stat, unlink, writeFile, readdir } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { SessionLockError } from './errors.js';
import { KeyedMutex } from './keyed-mutex.js';

/** How long to wait for a lock and when an abandoned one counts as stale. */
export interface FileLockOptions {
  /** Give up (SessionLockError) after this long. Default 10 000 ms. */
  timeoutMs?: number;
  /**
   * A lock whose owner cannot be checked (another host, an unreadable lock file) is stale after
   * this age. Default 10 000 ms. Never applies to a lock whose owner is alive on this host.
   */
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

/**
 * Start time of `pid` in clock ticks since boot (field 22 of `/proc/<pid>/stat`), or null when
 * it cannot be read (not Linux, process gone). Together with pid and host it names one process:
 * a pid reused by a later process has a different start time.
 */
export function processStartTime(pid: number): string | null {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'latin1');
  } catch {
    return null;
  }
  // Field 2 (comm) is parenthesised and may itself hold spaces and parentheses.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const start = fields[22 - 3];
  return start !== undefined && /^\d+$/.test(start) ? start : null;
}

const OWN_START = processStartTime(process.pid);

/** Whether the owner named by a lock file's content is certainly gone (dead pid or reused pid on this host). */
function ownerState(content: string): 'dead' | 'alive' | 'unknown' {
  const [pidText, host, , start] = content.split('\n');
  const pid = Number(pidText);
  if (host !== HOST || !Number.isInteger(pid) || pid <= 0) return 'unknown';
  if (!pidAlive(pid)) return 'dead';
  if (start === undefined || start === '') return 'alive'; // older lock format: pid alone
  const current = processStartTime(pid);
  if (current === null) return 'alive'; // cannot tell a reused pid apart here; never break a maybe-live owner
  return current === start ? 'alive' : 'dead';
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
  const state = ownerState(content);
  if (state === 'dead') return content;
  if (state === 'alive') return null; // age never breaks a live owner's lock
  return Date.now() - mtimeMs > staleMs ? content : null;
}

/** Renames `path` aside and deletes it if it still holds `observed`, else puts it back. */
async function removeIfUnchanged(path: string, observed: string, token: string): Promise<void> {
  const aside = `${path}.${token}.stale`;
  try {
    await rename(path, aside);
  } catch (error) {
    if (isErrno(error, 'ENOENT')) return;
    throw error;
  }
  const taken = await readFile(aside, 'utf8').catch(() => observed);
  if (taken !== observed) await link(aside, path).catch(() => undefined);
  await unlink(aside).catch(() => undefined);
}

/**
 * Removes the stale lock holding `observed`, as the only breaker: a guard file `<lock>.break`
 * (created with `link()`, naming us like a lock does) makes breakers take turns, and the lock is
 * re-read under the guard, so a breaker that was slow can never remove a live lock that another
 * process took after the stale one was gone. Returns false when another breaker is at work.
 */
async function breakStaleLock(lockPath: string, observed: string, temp: string, token: string, staleMs: number): Promise<boolean> {
  const guard = `${lockPath}.break`;
  try {
    await link(temp, guard);
  } catch (error) {
    if (!isErrno(error, 'EEXIST')) throw error;
    // A breaker that died mid-break would block everyone: clear its guard like a stale lock.
    const holder = await readFile(guard, 'utf8').catch(() => null);
    const mtimeMs = await stat(guard).then((st) => st.mtimeMs, () => Date.now());
    const state = holder === null ? 'alive' : ownerState(holder);
    if (holder !== null && (state === 'dead' || (state === 'unknown' && Date.now() - mtimeMs > staleMs))) {
      await removeIfUnchanged(guard, holder, token);
    }
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
    const content = `${process.pid}\n${HOST}\n${token}\n${OWN_START ?? ''}`;
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
        if (stale !== null && (await breakStaleLock(lockPath, stale, temp, token, staleMs))) continue;
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
    if (!name.startsWith(prefix) || !(name.endsWith('.tmp') || name.endsWith('.stale'))) continue;
    const full = join(dir, name);
    const text = await readFile(full, 'utf8').catch(() => null);
    if (text === null) continue;
    if (Number(text.split('\n')[0]) !== process.pid && ownerState(text) === 'dead') await unlink(full).catch(() => undefined);
  }
}
