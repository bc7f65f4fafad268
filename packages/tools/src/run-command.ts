import { spawn } from 'node:child_process';
import { StringDecoder } from 'node:string_decoder';

/** Inputs of `runCommand`. */
export interface RunCommandOptions {
  /** argv prefix of the shell, e.g. `['/bin/bash', '-c']`; the command is appended. */
  readonly shell: readonly string[];
  readonly command: string;
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  /** Milliseconds before the whole process group is killed; 0 = no limit. */
  readonly timeoutMs: number;
  /** Characters kept from each end of each stream (the middle is counted, not kept). */
  readonly keepChars: number;
  /** Kills the group when aborted. */
  readonly signal?: AbortSignal;
  /** Leave background jobs running after the shell exits (default false: the group is killed). */
  readonly keepBackgroundJobs?: boolean;
}

/** One captured stream: head and tail kept, everything counted. */
export interface CapturedStream {
  /** The text, with `omitted` characters missing at `head.length` when the stream was long. */
  readonly head: string;
  readonly tail: string;
  readonly omitted: number;
}

/** What `runCommand` observed. */
export interface RunCommandResult {
  readonly stdout: CapturedStream;
  readonly stderr: CapturedStream;
  readonly exitCode: number | null;
  readonly signalName: NodeJS.Signals | null;
  readonly timedOut: boolean;
  readonly aborted: boolean;
}

/** Keeps the first and last `keep` characters of a stream in bounded memory. */
class BoundedCapture {
  #head = '';
  #tail = '';
  #omitted = 0;
  readonly #decoder = new StringDecoder('utf8');
  constructor(readonly keep: number) {}

  push(chunk: Buffer | string): void {
    this.#add(typeof chunk === 'string' ? chunk : this.#decoder.write(chunk));
  }

  #add(text: string): void {
    if (this.#head.length < this.keep) {
      const room = this.keep - this.#head.length;
      this.#head += text.slice(0, room);
      text = text.slice(room);
    }
    if (!text) return;
    this.#tail += text;
    if (this.#tail.length > this.keep) {
      const drop = this.#tail.length - this.keep;
      this.#omitted += drop;
      this.#tail = this.#tail.slice(drop);
    }
  }

  result(): CapturedStream {
    this.#add(this.#decoder.end());
    return { head: this.#head, tail: this.#tail, omitted: this.#omitted };
  }
}

/** Sends `signal` to every process of the group led by `pid`; a group already gone is fine. */
export function killProcessGroup(pid: number, signal: NodeJS.Signals = 'SIGKILL'): void {
  try {
    process.kill(-pid, signal);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}

/**
 * Runs a shell command in its own process group (`detached`) and resolves once it is over.
 * On timeout or abort the whole group gets SIGKILL — children and grandchildren included, not
 * only the shell (the reference killed the shell alone, leaving `sleep &` children behind).
 * When the shell exits normally, leftover background jobs are killed too unless
 * `keepBackgroundJobs`. Output is captured in bounded memory. A process that moves itself to
 * another session/group (`setsid`) escapes group kills; only a sandbox (cgroups) stops that.
 * Rejects only if the shell cannot be spawned.
 */
export function runCommand(options: RunCommandOptions): Promise<RunCommandResult> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(options.shell[0], [...options.shell.slice(1), options.command], {
      cwd: options.cwd,
      env: { ...options.env },
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const stdout = new BoundedCapture(options.keepChars);
    const stderr = new BoundedCapture(options.keepChars);
    child.stdout.on('data', (c: Buffer) => stdout.push(c));
    child.stderr.on('data', (c: Buffer) => stderr.push(c));
    let timedOut = false;
    let aborted = false;
    let settled = false;
    const pid = child.pid;
    const killAll = () => {
      if (pid !== undefined) killProcessGroup(pid);
    };
    const timer =
      options.timeoutMs > 0
        ? setTimeout(() => {
            timedOut = true;
            killAll();
          }, options.timeoutMs)
        : undefined;
    const onAbort = () => {
      aborted = true;
      killAll();
    };
    if (options.signal?.aborted) onAbort();
    else options.signal?.addEventListener('abort', onAbort, { once: true });
    const cleanup = () => {
      if (timer) clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
    };
    child.on('error', (error) => {
      if (settled) return;
      settled = true;
      cleanup();
      reject(error);
    });
    child.on('exit', () => {
      // Background jobs still holding our pipes would keep 'close' from ever firing.
      if (!options.keepBackgroundJobs) killAll();
    });
    child.on('close', (code, signalName) => {
      if (settled) return;
      settled = true;
      cleanup();
      if (options.keepBackgroundJobs === false || options.keepBackgroundJobs === undefined) killAll();
      resolvePromise({
        stdout: stdout.result(),
        stderr: stderr.result(),
        exitCode: code,
        signalName,
        timedOut,
        aborted,
      });
    });
  });
}
