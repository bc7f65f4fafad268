import { constants as osConstants } from 'node:os';
import { StringDecoder } from 'node:string_decoder';
import { DrainableCapture } from './drainable-capture.js';
import type { Sandbox } from '../sandbox/sandbox.js';
import { startCommand, type StartedCommand } from './start-command.js';

/** Characters each stream of a session keeps between polls (the reference's `MAX_OUTPUT_CHARS`). */
export const SESSION_STREAM_CHARS = 50_000;
/** How long a poll that saw no output yet waits for some (the reference's 0.1 s drain grace). */
const OUTPUT_GRACE_MS = 100;
/** How long an exited session's pipes may stay open (held by a stray process) before we stop reading. */
const EXIT_GRACE_MS = 1000;

/** What a background command is started with (the exec tool's prepared command). */
export interface ExecSessionSpec {
  /** The session key that owns it: only calls with the same key may see or drive it. */
  readonly owner: string;
  readonly command: string;
  readonly shell: readonly string[];
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  readonly sandbox?: Sandbox;
  readonly workspace?: string;
  /** Milliseconds until the whole session is killed; 0 = no limit. */
  readonly timeoutMs: number;
  /** Leave jobs the shell put in the background running after it exits (default false). */
  readonly keepBackgroundJobs?: boolean;
}

/** One poll of a session: the output since the previous poll and its state. */
export interface ExecSessionPoll {
  readonly output: string;
  readonly done: boolean;
  /** Exit code, `-N` for a signal death (as Python's returncode); null while running. */
  readonly exitCode: number | null;
  readonly elapsedS: number;
  readonly timedOut: boolean;
  readonly terminated: boolean;
  readonly stdinClosed: boolean;
  /** Characters dropped from this poll's output (bounded capture and `max_output_chars`). */
  readonly truncatedChars: number;
}

/** Flags a poll reports besides the session's own state. */
export interface PollFlags {
  readonly terminated?: boolean;
  readonly stdinClosed?: boolean;
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

/** The reference's `_truncate_output`: head and tail around nothing, the cut counted separately. */
function capOutput(text: string, max: number): { text: string; omitted: number } {
  if (text.length <= max) return { text, omitted: 0 };
  const head = Math.floor(max / 2);
  return { text: text.slice(0, head) + text.slice(text.length - (max - head)), omitted: text.length - max };
}

/**
 * Node's stdin "pipe" is a socketpair, and bash reads `~/.bashrc` for a non-interactive shell
 * whose stdin is a socket (it assumes sshd started it): the host's rc file would run before every
 * session command, and may block on the new stdin. `--norc` restores what a real pipe (the
 * reference's `asyncio` subprocess) gives. Other shells are left alone. Pure.
 */
export function withoutRcFiles(shell: readonly string[]): readonly string[] {
  const [program, ...rest] = shell;
  if (program === undefined || !/(^|\/)bash$/.test(program) || rest.includes('--norc')) return shell;
  return [program, '--norc', ...rest];
}

/**
 * A command running in the background with a writable stdin, started through `startCommand`
 * (the same sandbox and environment as a one-shot exec). Output accumulates in bounded memory
 * until polled. Killed as a whole process tree on `kill`, at its deadline, and (unless
 * `keepBackgroundJobs`) its leftover jobs when the shell exits.
 */
export class ExecSession {
  readonly id: string;
  readonly owner: string;
  readonly command: string;
  readonly cwd: string;
  readonly startedAt: number;
  /** Host pid of the spawned process (bwrap or the shell), for embedders checking it is gone. */
  readonly pid: number | undefined;
  lastAccess: number;
  readonly #deadline: number;
  readonly #started: StartedCommand;
  readonly #stdout = new DrainableCapture(SESSION_STREAM_CHARS);
  readonly #stderr = new DrainableCapture(SESSION_STREAM_CHARS);
  readonly #listeners = new Set<(stream: 'stdout' | 'stderr', text: string) => void>();
  readonly #closed: Promise<void>;
  readonly #now: () => number;
  #exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  #spawnError: Error | undefined;
  #isClosed = false;
  #timedOut = false;
  #stdinBroken = false;
  #timer: NodeJS.Timeout | undefined;

  /** Spawns the command; throws what the sandbox's `wrap` throws. */
  constructor(id: string, spec: ExecSessionSpec, now: () => number) {
    this.id = id;
    this.owner = spec.owner;
    this.command = spec.command;
    this.cwd = spec.cwd;
    this.#now = now;
    this.startedAt = now();
    this.lastAccess = this.startedAt;
    this.#deadline = spec.timeoutMs > 0 ? this.startedAt + spec.timeoutMs : Number.POSITIVE_INFINITY;
    const started = startCommand({
      shell: withoutRcFiles(spec.shell),
      command: spec.command,
      cwd: spec.cwd,
      env: spec.env,
      stdin: 'pipe',
      ...(spec.sandbox ? { sandbox: spec.sandbox } : {}),
      ...(spec.workspace !== undefined ? { workspace: spec.workspace } : {}),
    });
    this.#started = started;
    this.pid = started.child.pid;
    // A write to a command that closed its stdin must be an error result, not a crash.
    started.stdin?.on('error', () => {
      this.#stdinBroken = true;
    });
    const decoders = { stdout: new StringDecoder('utf8'), stderr: new StringDecoder('utf8') };
    const onData = (stream: 'stdout' | 'stderr') => (chunk: Buffer) => {
      const text = decoders[stream].write(chunk);
      if (!text) return;
      (stream === 'stdout' ? this.#stdout : this.#stderr).append(text);
      for (const listener of this.#listeners) listener(stream, text);
    };
    started.stdout.on('data', onData('stdout'));
    started.stderr.on('data', onData('stderr'));
    this.#closed = new Promise((resolve) => {
      let openPipes = 2;
      let grace: NodeJS.Timeout | undefined;
      const finish = () => {
        if (this.#isClosed) return;
        this.#isClosed = true;
        if (grace) clearTimeout(grace);
        if (this.#timer) clearTimeout(this.#timer);
        for (const stream of ['stdout', 'stderr'] as const) {
          const rest = decoders[stream].end();
          if (rest) (stream === 'stdout' ? this.#stdout : this.#stderr).append(rest);
        }
        started.stdout.destroy();
        started.stderr.destroy();
        started.stdin?.destroy();
        started.child.unref();
        started.endWatch((spec.keepBackgroundJobs ?? false) && !this.#timedOut);
        started.plan.dispose?.();
        for (const listener of this.#listeners) listener('stdout', '');
        resolve();
      };
      const pipeClosed = () => {
        openPipes -= 1;
        if (openPipes === 0 && this.#exit) finish();
      };
      started.stdout.on('close', pipeClosed);
      started.stderr.on('close', pipeClosed);
      started.child.on('exit', (code, signal) => {
        this.#exit = { code, signal };
        if (!spec.keepBackgroundJobs || this.#timedOut) started.killAll();
        if (openPipes === 0) finish();
        else grace ??= setTimeout(finish, EXIT_GRACE_MS);
      });
      started.child.on('error', (error) => {
        this.#spawnError = error;
        this.#exit ??= { code: null, signal: null };
        finish();
      });
    });
    if (Number.isFinite(this.#deadline)) {
      this.#timer = setTimeout(() => {
        this.#timedOut = true;
        started.killAll();
      }, spec.timeoutMs);
    }
  }

  /** Set when the command could not be spawned at all. */
  get spawnError(): Error | undefined {
    return this.#spawnError;
  }

  /** Whether the command has exited and its output has been read to the end. */
  get done(): boolean {
    return this.#isClosed;
  }

  /** Exit code (`-N` for a signal death), null while running. */
  get exitCode(): number | null {
    if (!this.#isClosed || !this.#exit) return null;
    if (this.#exit.code !== null) return this.#exit.code;
    const signal = this.#exit.signal ? osConstants.signals[this.#exit.signal] : undefined;
    return signal !== undefined ? -signal : -9;
  }

  /** Seconds left before the deadline kills it (Infinity without one). */
  remainingS(now: number): number {
    return Math.max(0, (this.#deadline - now) / 1000);
  }

  /** Resolves once the command exited and its pipes are read (or abandoned). */
  closed(): Promise<void> {
    return this.#closed;
  }

  /** Writes to stdin; resolves with an error text (the reference's wording) or undefined. */
  async write(chars: string): Promise<string | undefined> {
    if (this.#exit) return 'session has already exited';
    const stdin = this.#started.stdin;
    if (!stdin) return 'session stdin is not available';
    if (this.#stdinBroken || stdin.writableEnded || stdin.destroyed) return 'session stdin is closed';
    return new Promise((resolve) => {
      stdin.write(chars, 'utf8', (error) => resolve(error ? 'session stdin is closed' : undefined));
    });
  }

  /** Sends EOF; an error text when the session already exited. */
  closeStdin(): string | undefined {
    if (this.#exit) return 'session has already exited';
    const stdin = this.#started.stdin;
    if (!stdin) return 'session stdin is not available';
    if (!stdin.writableEnded && !stdin.destroyed) stdin.end();
    return undefined;
  }

  /** Kills every process of the session and waits until its output is read (bounded by the exit grace). */
  async kill(): Promise<void> {
    this.#started.killAll();
    await this.#closed;
  }

  /**
   * Waits until `text` appears in output that arrives from now on (or is already waiting to be
   * polled), the session ends, `timeoutMs` passes or `signal` aborts; resolves whether it appeared.
   */
  waitForText(text: string, timeoutMs: number, signal?: AbortSignal): Promise<boolean> {
    if (this.#stdout.retained.includes(text) || this.#stderr.retained.includes(text)) return Promise.resolve(true);
    if (this.#isClosed) return Promise.resolve(false);
    const keep = text.length - 1;
    const tailOf = (value: string) => (keep > 0 ? value.slice(-keep) : '');
    const overlap = { stdout: tailOf(this.#stdout.retained), stderr: tailOf(this.#stderr.retained) };
    return new Promise((resolve) => {
      const settle = (found: boolean) => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        this.#listeners.delete(listener);
        resolve(found);
      };
      const listener = (stream: 'stdout' | 'stderr', chunk: string) => {
        if (!chunk) return settle(false);
        const searchable = overlap[stream] + chunk;
        if (searchable.includes(text)) return settle(true);
        overlap[stream] = tailOf(searchable);
      };
      const onAbort = () => settle(false);
      const timer = setTimeout(() => settle(false), timeoutMs);
      this.#listeners.add(listener);
      signal?.addEventListener('abort', onAbort, { once: true });
      if (signal?.aborted) settle(false);
    });
  }

  /**
   * Waits up to `yieldMs` (never past the deadline) for the command to end, then hands over the
   * output since the last poll, stdout then `STDERR:` and stderr, cut to `maxOutputChars`.
   */
  async poll(yieldMs: number, maxOutputChars: number, flags: PollFlags = {}, signal?: AbortSignal): Promise<ExecSessionPoll> {
    this.lastAccess = this.#now();
    if (yieldMs > 0 && !this.#isClosed) {
      const wait = Math.min(yieldMs, Math.max(0, this.#deadline - this.#now()));
      if (wait > 0) {
        const controller = new AbortController();
        const stopWaiting = () => controller.abort();
        signal?.addEventListener('abort', stopWaiting, { once: true });
        await Promise.race([this.#closed, sleep(wait, controller.signal)]);
        controller.abort();
        signal?.removeEventListener('abort', stopWaiting);
      }
      if (!this.#isClosed && !this.#stdout.hasOutput && !this.#stderr.hasOutput && !signal?.aborted) {
        await Promise.race([this.#closed, this.#nextOutput(OUTPUT_GRACE_MS)]);
      }
    }
    // A session killed at its deadline is read to the end before it is reported.
    if (this.#timedOut) await this.#closed;
    const out = this.#stdout.drain();
    const err = this.#stderr.drain();
    const parts = out.text ? [out.text] : [];
    if (err.text) parts.push(`STDERR:\n${err.text}`);
    const capped = capOutput(parts.join('\n'), maxOutputChars);
    this.lastAccess = this.#now();
    return {
      output: capped.text,
      done: this.#isClosed,
      exitCode: this.exitCode,
      elapsedS: Math.max(0, (this.#now() - this.startedAt) / 1000),
      timedOut: this.#timedOut,
      terminated: flags.terminated ?? false,
      stdinClosed: flags.stdinClosed ?? false,
      truncatedChars: out.truncated + err.truncated + capped.omitted,
    };
  }

  #nextOutput(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.#listeners.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.#listeners.add(done);
    });
  }
}
