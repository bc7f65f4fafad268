import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { SessionLockError, withFileLock } from './index.js';
import { processStartTime } from './file-lock.js';

function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
  return Number(child.stdout.toString());
}

describe('withFileLock', () => {
  it('breaks a lock left by a dead process at once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'nb-lock-'));
    const lock = join(dir, 'x.lock');
    writeFileSync(lock, `${deadPid()}\n${hostname()}\nabc`);
    expect(await withFileLock(lock, async () => 'got it', { timeoutMs: 2000 })).toBe('got it');
    expect(existsSync(lock)).toBe(false);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('waits for a live holder and times out with SessionLockError', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'nb-lock-'));
    const lock = join(dir, 'x.lock');
    writeFileSync(lock, `${process.ppid}\n${hostname()}\nlive`); // the parent process is alive
    await expect(withFileLock(lock, async () => 1, { timeoutMs: 100 })).rejects.toBeInstanceOf(SessionLockError);
    expect(readFileSync(lock, 'utf8')).toContain('live');
  });

  it('breaks an unverifiable lock (other host) only after staleMs', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'nb-lock-'));
    const lock = join(dir, 'x.lock');
    writeFileSync(lock, '1\nsome-other-host\nzzz');
    await expect(withFileLock(lock, async () => 1, { timeoutMs: 50, staleMs: 60_000 })).rejects.toBeInstanceOf(SessionLockError);
    expect(await withFileLock(lock, async () => 2, { timeoutMs: 1000, staleMs: 0 })).toBe(2);
  });

  it('reads the process start time from /proc (Linux) and it names this process', () => {
    if (process.platform !== 'linux') return expect(processStartTime(process.pid)).toBeNull();
    const start = processStartTime(process.pid);
    expect(start).toMatch(/^\d+$/);
    expect(processStartTime(process.pid)).toBe(start);
    expect(processStartTime(deadPid())).toBeNull();
  });

  it('breaks a lock whose pid is alive but was reused (other start time)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'nb-lock-'));
    const lock = join(dir, 'x.lock');
    const start = processStartTime(process.ppid);
    // The parent is alive; a lock naming it with another start time belongs to an earlier process.
    writeFileSync(lock, `${process.ppid}\n${hostname()}\nold\n${start === null ? '' : String(Number(start) + 1)}`);
    if (start === null) {
      await expect(withFileLock(lock, async () => 1, { timeoutMs: 100 })).rejects.toBeInstanceOf(SessionLockError);
    } else {
      expect(await withFileLock(lock, async () => 'got it', { timeoutMs: 2000, staleMs: 60_000 })).toBe('got it');
    }
  });

  it('never breaks the lock of a live process on this host, however old (real second process)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'nb-lock-'));
    const script = join(dir, 'holder.mjs');
    await build({
      entryPoints: [join(import.meta.dirname, '..', 'test', 'lock-holder-child.ts')],
      outfile: script,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      conditions: ['source'],
      logLevel: 'silent',
    });
    const lock = join(dir, 'x.lock');
    const child = spawn(process.execPath, [script, lock, '2500'], { stdio: ['ignore', 'pipe', 'inherit'] });
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    await new Promise<void>((resolve) => child.stdout.on('data', (chunk: Buffer) => chunk.toString().includes('locked') && resolve()));
    // staleMs far below the holding time: the old age fallback would break in after 50 ms.
    await expect(withFileLock(lock, async () => 'entered', { timeoutMs: 800, staleMs: 50 })).rejects.toBeInstanceOf(SessionLockError);
    expect(existsSync(`${lock}.done`)).toBe(false);
    const inside = await withFileLock(lock, async () => existsSync(`${lock}.done`), { timeoutMs: 30_000, staleMs: 50 });
    expect(inside).toBe(true); // entered only after the holder finished
    expect(await exited).toBe(0);
  }, 60_000);

  it('releases the lock when the callback throws', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'nb-lock-'));
    const lock = join(dir, 'x.lock');
    await expect(withFileLock(lock, async () => Promise.reject(new Error('inner')))).rejects.toThrow('inner');
    expect(existsSync(lock)).toBe(false);
  });

  it('four processes racing over a stale lock never lose an update', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'nb-lock-'));
    const script = join(dir, 'child.mjs');
    await build({
      entryPoints: [join(import.meta.dirname, '..', 'test', 'lock-child.ts')],
      outfile: script,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      conditions: ['source'],
      logLevel: 'silent',
    });
    const counter = join(dir, 'counter');
    writeFileSync(counter, '0');
    writeFileSync(`${counter}.lock`, `${deadPid()}\n${hostname()}\nstale`);
    const rounds = 40;
    const runs = Array.from({ length: 4 }, () => new Promise<number | null>((resolve) => {
      const child = spawn(process.execPath, [script, counter, String(rounds)], { stdio: 'inherit' });
      child.on('exit', resolve);
    }));
    expect(await Promise.all(runs)).toEqual([0, 0, 0, 0]);
    expect(Number(readFileSync(counter, 'utf8'))).toBe(4 * rounds);
  });
});
