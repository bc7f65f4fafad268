import { StringDecoder } from 'node:string_decoder';
import type { Sandbox } from '../sandbox/sandbox.js';
import { startCommand, type StartedCommand } from './start-command.js';

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
  /** Leave background jobs running after the shell exits (default false: they are killed). Ignored by containing sandboxes. */
  readonly keepBackgroundJobs?: boolean;
  /** Where the command runs (default `NoSandbox`). */
  readonly sandbox?: Sandbox;
  /** The directory a sandbox binds read-write (default `cwd`). */
  readonly workspace?: string;
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

/** How long a killed command's pipes may stay open before we stop reading them. */
const PIPE_GRACE_MS = 200;
/**
 * The same after a normal exit: longer, because output still buffered in the pipes must not be
 * lost on a busy event loop; it only delays calls whose pipes a stray (`setsid`) process holds.
 */
const EXIT_GRACE_MS = 1000;

/**
 * Runs a shell command in its own session and process group (`detached`), through `sandbox`
 * (default `NoSandbox`), and resolves once it is over — at the latest `PIPE_GRACE_MS` (200 ms)
 * after its deadline or abort, whatever its children do: the result never waits for pipes inherited by
 * stray processes. On timeout or abort everything is SIGKILLed: the group and every process
 * still in the session (`set -m` jobs included; a box keeps its pid namespace's init in the
 * group, and the namespace dies with it); the owner watch does the same if this process dies
 * mid-call. When the shell exits normally leftover
 * background jobs are killed the same way unless `keepBackgroundJobs` (a containing sandbox
 * always ends them). Only a process that calls `setsid` and double-forks escapes without a
 * sandbox. Output is captured in bounded memory. Rejects only if the command cannot be spawned.
 */
export function runCommand(options: RunCommandOptions): Promise<RunCommandResult> {
  return new Promise((resolvePromise, reject) => {
    let started: StartedCommand;
    try {
      started = startCommand({
        shell: options.shell,
        command: options.command,
        cwd: options.cwd,
        env: options.env,
        ...(options.sandbox ? { sandbox: options.sandbox } : {}),
        ...(options.workspace !== undefined ? { workspace: options.workspace } : {}),
      });
    } catch (error) {
      reject(error);
      return;
    }
    const { child, plan, killAll, stdout: stdoutPipe, stderr: stderrPipe } = started;
    const stdout = new BoundedCapture(options.keepChars);
    const stderr = new BoundedCapture(options.keepChars);
    stdoutPipe.on('data', (c: Buffer) => stdout.push(c));
    stderrPipe.on('data', (c: Buffer) => stderr.push(c));
    let timedOut = false;
    let aborted = false;
    let settled = false;
    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    let openPipes = 2;
    let grace: NodeJS.Timeout | undefined;
    const finish = () => {
      if (settled) return;
      settled = true;
      cleanup();
      stdoutPipe.destroy();
      stderrPipe.destroy();
      child.unref();
      started.endWatch((options.keepBackgroundJobs ?? false) && !timedOut && !aborted);
      plan.dispose?.();
      resolvePromise({
        stdout: stdout.result(),
        stderr: stderr.result(),
        exitCode: exit?.code ?? null,
        signalName: exit?.signal ?? (exit ? null : 'SIGKILL'),
        timedOut,
        aborted,
      });
    };
    const startGrace = (ms = PIPE_GRACE_MS) => {
      grace ??= setTimeout(finish, ms);
    };
    const stop = () => {
      killAll();
      startGrace();
    };
    const timer =
      options.timeoutMs > 0
        ? setTimeout(() => {
            timedOut = true;
            stop();
          }, options.timeoutMs)
        : undefined;
    const onAbort = () => {
      aborted = true;
      stop();
    };
    const cleanup = () => {
      if (timer) clearTimeout(timer);
      if (grace) clearTimeout(grace);
      options.signal?.removeEventListener('abort', onAbort);
    };
    child.on('error', (error) => {
      if (settled) return;
      settled = true;
      cleanup();
      started.endWatch(false);
      plan.dispose?.();
      reject(error);
    });
    const pipeClosed = () => {
      openPipes -= 1;
      if (openPipes === 0 && exit) finish();
    };
    stdoutPipe.on('close', pipeClosed);
    stderrPipe.on('close', pipeClosed);
    child.on('exit', (code, signalName) => {
      exit = { code, signal: signalName };
      if (!options.keepBackgroundJobs || timedOut || aborted) killAll();
      if (openPipes === 0) finish();
      else startGrace(timedOut || aborted ? PIPE_GRACE_MS : EXIT_GRACE_MS);
    });
    if (options.signal?.aborted) onAbort();
    else options.signal?.addEventListener('abort', onAbort, { once: true });
  });
}
